import ImagePipe

/// `imagepipe man`: the manual page imagepipe(1), in roff, made from the same texts as the
/// command's own help and from every registered stage's schema, so that the page, `--help` and
/// `imagepipe stages` cannot drift apart. `make install` writes it.
struct Manual {
    let registry: Registry

    static let help = """
        usage: imagepipe man

        Prints the manual page, imagepipe(1), in roff: every command's help and every stage's
        description, the plugins' stages too (`imagepipe man | man -l -` shows it). make install
        writes it.

        Options:
        """ + "\n" + OptionTable.text([])

    static let declaration = CommandDeclaration("man", summary: "Print the manual page, imagepipe(1)",
                                                help: help) { try Manual(registry: $0).main($1) }

    func main(_ arguments: [String]) throws -> Int32 {
        guard let parser = try OptionParser.parse(arguments, options: [], help: Self.help) else { return 0 }
        guard parser.positionals.isEmpty else { throw UsageError("man takes no arguments; see imagepipe man --help") }
        Console.output(page)
        return 0
    }

    var page: String {
        var lines = [
            ".TH IMAGEPIPE 1 \"\" \"imagepipe \(ImagePipeCommand.version)\" \"User Commands\"",
            ".SH NAME",
            "imagepipe \\- run image pipelines: resize, crop, avatars, tone and filters over gdk-pixbuf",
            ".SH SYNOPSIS",
            ".B imagepipe",
            ".I COMMAND",
            "[OPTIONS]",
            ".SH DESCRIPTION",
        ]
        lines += Self.verbatim(ImagePipeCommand.usage)
        lines.append(".SH COMMANDS")
        for command in ImagePipeCommand.commands {
            lines += [".SS \(command.name)"] + Self.verbatim(command.help)
        }
        lines.append(".SH STAGES")
        lines += Self.verbatim("Every stage, as `imagepipe stages NAME` describes it.")
        let stages = StagesCommand(registry: registry)
        for name in registry.stageNames {
            guard let entry = registry.entry(named: name) else { continue }
            lines += [".SS \(name)"] + Self.verbatim(stages.description(of: entry))
        }
        lines += [
            ".SH ENVIRONMENT",
            ".TP", ".B IMAGEPIPE_PLUGIN_PATH", "Directories (separated by ':') whose .so files are loaded as plugins. A plugin, and every directory above it up to /, must belong to you or root and be writable by no one else (a sticky directory such as /tmp is no exception); each is tried in a separate process first, and refused when it crashes there.",
            ".TP", ".B IMAGEPIPE_ALLOW_FORMATS", "Formats decoded beyond the vetted ones, as --allow-format.",
            ".SH FILES",
            ".TP", ".I PREFIX/lib/imagepipe/plugins",
            "Plugins loaded by default, beside the installed command (PREFIX is the directory above its bin/).",
            ".SH EXIT STATUS",
            "0 done, 1 a processing error, 2 a usage or pipeline error, 128 + N stopped by signal N.",
        ]
        return lines.joined(separator: "\n") + "\n"
    }

    /// Text shown as it is (no filling), escaped so roff reads no request or escape in it.
    static func verbatim(_ text: String) -> [String] {
        [".nf"] + text.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            let escaped = String(line).replacingAll("\\", with: "\\e")
            return escaped.hasPrefix(".") || escaped.hasPrefix("'") ? "\\&" + escaped : escaped
        } + [".fi"]
    }
}
