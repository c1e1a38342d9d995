import ImagePipe

/// `imagepipe man`: the manual page imagepipe(1), in roff, made from the same texts as the
/// command's own help and from every registered stage's schema, so that the page, `--help` and
/// `imagepipe stages` cannot drift apart. `make install` writes it.
struct Manual {
    let registry: Registry

    /// Each command's help and the options it takes (`--help` aside), in the order the
    /// top-level usage lists them: the completions are made from the same declarations.
    static let commands: [(name: String, help: String, options: [any OptionDeclaring])] = [
        ("run", RunCommand.help, RunCommand.options), ("convert", ConvertCommand.help, ConvertCommand.options),
        ("check", CheckCommand.help, CheckCommand.options), ("explain", ExplainCommand.help, ExplainCommand.options),
        ("stages", StagesCommand.help, StagesCommand.options), ("info", InfoCommand.help, InfoCommand.options),
        ("compare", CompareCommand.help, CompareCommand.options), ("edit", EditCommand.help, EditCommand.options),
        ("report", ReportCommand.help, ReportCommand.options), ("serve", ServeCommand.help, ServeCommand.options),
        ("url", URLCommand.help, URLCommand.options),
    ]

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
        for (name, help, _) in Self.commands {
            lines += [".SS \(name)"] + Self.verbatim(help)
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
