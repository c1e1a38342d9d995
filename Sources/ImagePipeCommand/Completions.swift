import ImagePipe

/// `imagepipe completions bash|zsh|fish`: shell completion of commands, options, option values
/// (formats, modes, folders), stage names and parameter names (`kernel=`), made from the
/// commands' option declarations and the registry, so a new option or stage completes without
/// anyone editing a script. `make install` writes all three.
struct Completions {
    let registry: Registry
    /// The commands completed, with the options each declares (their help is not read).
    var commands: [CommandDeclaration] = ImagePipeCommand.commands

    static let help = """
        usage: imagepipe completions bash|zsh|fish

        Prints a completion script for the shell: commands, options, stage names and parameter
        names (e.g. kernel=). make install puts them where each shell looks.

        Options:
        """ + "\n" + OptionTable.text([])

    static let declaration = CommandDeclaration("completions", summary: "Print a completion script for bash, zsh or fish",
                                                help: help) { try Completions(registry: $0).main($1) }

    func main(_ arguments: [String]) throws -> Int32 {
        guard let parser = try OptionParser.parse(arguments, options: [], help: Self.help) else { return 0 }
        guard parser.positionals.count == 1 else { throw UsageError("completions takes one shell: bash, zsh or fish") }
        switch parser.positionals[0] {
        case "bash": Console.output(bash)
        case "zsh": Console.output(zsh)
        case "fish": Console.output(fish)
        case let other: throw UsageError("unknown shell '\(other)': use bash, zsh or fish")
        }
        return 0
    }

    /// A command's declarations, `-h, --help` last.
    static func declarations(_ options: [any OptionDeclaring]) -> [OptionDeclaration] {
        (options + [OptionParser.helpFlag]).map(\.declaration)
    }

    /// A command's option names for completion, each once.
    static func optionWords(_ options: [any OptionDeclaring]) -> String {
        declarations(options).flatMap(\.names).joined(separator: " ")
    }

    /// `"run --format"|"run --scaling"`…: the shell's case patterns, "COMMAND OPTION", for the
    /// options whose values come from `kind`, with the words to offer (nil: directories).
    private func valueCases() -> [(patterns: [String], words: [String]?)] {
        var cases: [(patterns: [String], words: [String]?)] = []
        for command in commands {
            for declaration in Self.declarations(command.options) {
                let words: [String]?
                switch declaration.valueKind {
                case let .choices(choices): words = choices
                case .directory: words = nil
                case .text, .file: continue
                }
                let patterns = declaration.names.map { "\"\(command.name) \($0)\"" }
                if let index = cases.firstIndex(where: { $0.words == words }) {
                    cases[index].patterns += patterns
                } else {
                    cases.append((patterns, words))
                }
            }
        }
        return cases
    }

    /// The options before a command, as the top-level usage lists them.
    static let topLevelWords = ImagePipeCommand.options.flatMap(\.declaration.names).joined(separator: " ")

    /// The first words: the commands, and `help` (`imagepipe help run`).
    private var commandNames: [String] { commands.map(\.name) + ["help"] }
    private var stageWords: String { registry.stageNames.joined(separator: " ") }
    private var parameterWords: String {
        Set(registry.stageNames.compactMap { registry.entry(named: $0) }.flatMap { $0.schema.parameters.map { $0.name + "=" } })
            .sorted().joined(separator: " ")
    }

    var bash: String {
        let cases = commands.map { "        \($0.name)) options=\"\(Self.optionWords($0.options))\" ;;" }
        let values = valueCases().map { value in
            let reply = value.words.map { "compgen -W \"\($0.joined(separator: " "))\" -- \"$current\"" } ?? "compgen -d -- \"$current\""
            return "        \(value.patterns.joined(separator: "|"))) COMPREPLY=($(\(reply))); return ;;"
        }
        return """
            # bash completion for imagepipe (made by `imagepipe completions bash`)
            _imagepipe() {
                local current=${COMP_WORDS[COMP_CWORD]} previous=${COMP_WORDS[COMP_CWORD-1]} options=""
                if [ "$COMP_CWORD" -eq 1 ]; then
                    COMPREPLY=($(compgen -W "\(commandNames.joined(separator: " ")) \(Self.topLevelWords)" -- "$current"))
                    return
                fi
                case "${COMP_WORDS[1]} $previous" in
            \(values.joined(separator: "\n"))
                esac
                case ${COMP_WORDS[1]} in
            \(cases.joined(separator: "\n"))
                esac
                if [[ $current == -* ]]; then
                    COMPREPLY=($(compgen -W "$options" -- "$current"))
                elif [ "${COMP_WORDS[1]}" = stages ] || [ "${COMP_WORDS[1]}" = help ]; then
                    COMPREPLY=($(compgen -W "\(stageWords) \(commands.map(\.name).joined(separator: " "))" -- "$current"))
                elif [ "$previous" = -e ] || [ "$previous" = --expression ]; then
                    COMPREPLY=($(compgen -W "\(stageWords) \(parameterWords)" -- "$current"))
                else
                    COMPREPLY=($(compgen -f -- "$current"))
                fi
            }
            complete -o filenames -F _imagepipe imagepipe
            """
    }

    var zsh: String {
        let cases = commands.map { "        \($0.name)) options=(\(Self.optionWords($0.options))) ;;" }
        let values = valueCases().map { value in
            "        \(value.patterns.joined(separator: "|"))) \(value.words.map { "compadd -- " + $0.joined(separator: " ") } ?? "_files -/"); return ;;"
        }
        return """
            #compdef imagepipe
            # zsh completion for imagepipe (made by `imagepipe completions zsh`)
            _imagepipe() {
                local -a options
                if (( CURRENT == 2 )); then
                    compadd -- \(commandNames.joined(separator: " ")) \(Self.topLevelWords)
                    return
                fi
                case "$words[2] $words[CURRENT-1]" in
            \(values.joined(separator: "\n"))
                esac
                case $words[2] in
            \(cases.joined(separator: "\n"))
                esac
                if [[ $PREFIX == -* ]]; then
                    compadd -- $options
                elif [[ $words[2] == stages || $words[2] == help ]]; then
                    compadd -- \(stageWords)
                elif [[ $words[CURRENT-1] == -e || $words[CURRENT-1] == --expression ]]; then
                    compadd -- \(stageWords) \(parameterWords)
                else
                    _files
                fi
            }
            _imagepipe "$@"
            """
    }

    var fish: String {
        var lines = ["# fish completion for imagepipe (made by `imagepipe completions fish`)",
                     "complete -c imagepipe -f -n __fish_use_subcommand -a '\(commandNames.joined(separator: " "))'"]
        let topLevel = [("", ImagePipeCommand.options.map(\.declaration))]
        for (name, declarations) in topLevel + commands.map({ ($0.name, Self.declarations($0.options)) }) {
            for declaration in declarations {
                var line = "complete -c imagepipe -n " + (name.isEmpty ? "__fish_use_subcommand" : "'__fish_seen_subcommand_from \(name)'")
                for option in declaration.names {
                    line += option.hasPrefix("--") ? " -l \(option.dropFirst(2))" : " -s \(option.dropFirst())"
                }
                switch declaration.valueKind {
                case let .choices(words): line += " -x -a '\(words.joined(separator: " "))'"
                case .directory: line += " -x -a '(__fish_complete_directories)'"
                case .text, .file: break // files, and after -e the stages below
                }
                // The help on one line: fish cuts it to the terminal's width itself.
                lines.append(line + " -d " + Self.fishQuoted(declaration.help.split(separator: "\n").joined(separator: " ")))
            }
        }
        lines.append("complete -c imagepipe -f -n '__fish_seen_subcommand_from stages help' -a '\(stageWords)'")
        lines.append("complete -c imagepipe -n '__fish_seen_subcommand_from run check explain' -a '\(stageWords) \(parameterWords)'")
        return lines.joined(separator: "\n")
    }

    /// `text` in fish's single quotes, where only `\` and `'` are escaped.
    static func fishQuoted(_ text: String) -> String {
        "'" + text.replacingAll("\\", with: "\\\\").replacingAll("'", with: "\\'") + "'"
    }
}
