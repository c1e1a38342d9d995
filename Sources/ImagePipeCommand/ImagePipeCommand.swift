import ImagePipe
import ImagePipeStages
#if canImport(Glibc)
import Glibc
#endif

/// The `imagepipe` command, as a library: a package that adds its own stages can build its own
/// command with `ImagePipeCommand(registry: …).main(…)`.
public struct ImagePipeCommand: Sendable {
    public static let version = "0.1.0"

    public var registry: Registry

    public init(registry: Registry = StandardPlugins.registry) { self.registry = registry }

    /// Every command, in the order the usage lists them: the dispatch, the usage, the suggestion
    /// for a misspelt command, the manual page and the completions are all made from this list.
    static let commands: [CommandDeclaration] = [
        RunCommand.declaration, ConvertCommand.declaration, CheckCommand.declaration, ExplainCommand.declaration,
        StagesCommand.declaration, InfoCommand.declaration, CompareCommand.declaration, EditCommand.declaration,
        ReportCommand.declaration, ServeCommand.declaration, URLCommand.declaration, Manual.declaration, Completions.declaration,
    ]

    static let usage = """
        usage: imagepipe COMMAND [OPTIONS]

        Commands:
        """ + "\n" + CommandTable.text(commands) + "\n\n" + """
        Options:
        """ + "\n" + OptionTable.text(options, width: 13, helpFlag: false) + "\n\n" + """
        Plugins are also loaded from every .so file in PREFIX/lib/imagepipe/plugins (beside an
        installed PREFIX/bin/imagepipe) and in the directories listed in IMAGEPIPE_PLUGIN_PATH
        (separated by ':'). Each is first tried in a separate process, and refused when it crashes
        there. A plugin that cannot be loaded is reported, and the command goes on without it.

        Exit status: 0 done, 1 a processing error, 2 a usage or pipeline error.
        """

    /// The options before a command (`--plugin` anywhere on the line), for the usage and the
    /// completions of the first word.
    static let helpFlag = OptionParser.helpFlag.describing("Show help (also after a command: imagepipe run --help, or imagepipe help run)")
    static let versionFlag = CommandFlag("--version", help: "Show the version")
    static let plugin = CommandOption("--plugin", value: "PATH", kind: .file, help: "Load a plugin library (repeatable; anywhere on the line)")
    static let options: [any OptionDeclaring] = [helpFlag, versionFlag, plugin]

    /// Runs the command with `arguments` (without the program name); returns the exit status.
    public func main(_ arguments: [String]) -> Int32 {
        LibraryMessages.silence() // each bad file gets one line of ours, not GLib's noise too
        // The command's helper processes, before any plugin of the user's loads: the opt-in
        // formats' decoder (IsolatedDecoder) and the plugin scanner's child (PluginScanner).
        if arguments.first == IsolatedDecoder.childCommand { return IsolatedDecoder.childMain(Array(arguments.dropFirst())) }
        if arguments.first == PluginScanner.subcommand { return PluginScanner.main(Array(arguments.dropFirst())) }
        var registry = registry
        let arguments = loadPlugins(from: arguments, into: &registry)
        let command = ImagePipeCommand(registry: registry)
        return command.dispatch(arguments)
    }

    /// Loads the plugins named by `--plugin` and IMAGEPIPE_PLUGIN_PATH; returns the arguments
    /// without the `--plugin` options.
    private func loadPlugins(from arguments: [String], into registry: inout Registry) -> [String] {
        var paths = PluginDirectory.installed().map(PluginDirectory.libraries(in:)) ?? []
        if let variable = getenv("IMAGEPIPE_PLUGIN_PATH") {
            for directory in String(cString: variable).split(separator: ":") {
                paths += PluginDirectory.libraries(in: String(directory))
            }
        }
        var remaining: [String] = []
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            if argument == "--" {
                remaining += arguments[index...]
                break
            } else if argument == Self.plugin.declaration.key, index + 1 < arguments.count {
                paths.append(arguments[index + 1])
                index += 2
                continue
            } else if argument.hasPrefix(Self.plugin.declaration.key + "=") {
                paths.append(String(argument.dropFirst(Self.plugin.declaration.key.count + 1)))
            } else {
                remaining.append(argument)
            }
            index += 1
        }
        for path in paths {
            do throws(PluginLoadError) {
                let file = try PluginFile(opening: path)
                defer { file.close() }
                try PluginScanner.vet(file)
                try registry.loadPlugin(file)
            } catch {
                Console.warning("\(error)")
            }
        }
        return remaining
    }

    /// The command `name` declares; for any other word, the usage error, with the declared name
    /// closest to it.
    static func command(named name: String) throws -> CommandDeclaration {
        if let command = commands.first(where: { $0.name == name }) { return command }
        let hint = Suggestion.closest(to: name, in: commands.map(\.name)).map { " (did you mean '\($0)'?)" } ?? ""
        throw UsageError("unknown command '\(name)'\(hint); see imagepipe --help")
    }

    private func dispatch(_ arguments: [String]) -> Int32 {
        guard let command = arguments.first else {
            Console.diagnostics(Self.usage)
            return 2
        }
        let rest = Array(arguments.dropFirst())
        do {
            switch command {
            case "help" where rest.count == 1 && rest[0] != "help":
                // `imagepipe help run` is `imagepipe run --help`, as git and go have it.
                return dispatch(rest + ["--help"])
            case "-h", "--help", "help":
                Console.output(Self.usage)
                return 0
            case "--version", "version":
                Console.output("imagepipe \(Self.version)\n\(BuildInfo.summary)")
                return 0
            default:
                return try Self.command(named: command).run(registry, rest)
            }
        } catch let error as UsageError {
            Console.error(RemedyWording.text(for: error))
            return 2
        } catch let error as PipelineSyntaxError {
            Console.diagnostics(RemedyWording.text(for: error))
            return 2
        } catch {
            Console.error(RemedyWording.text(for: error))
            return 1
        }
    }
}
