import ImagePipe

/// `imagepipe stages [NAME]`: the stage list and each stage's help, from the schemas.
struct StagesCommand {
    let registry: Registry

    static let help = """
        usage: imagepipe stages [NAME]

        Without NAME, lists every stage with its summary, grouped by plugin. With NAME, shows
        the stage's usage, each parameter's type, default and help, and an example.
        """

    func main(_ arguments: [String]) throws -> Int32 {
        var parser = OptionParser(options: [.init(names: ["-h", "--help"], takesValue: false)])
        try parser.parse(arguments)
        if parser.has("--help") {
            Console.output(Self.help)
            return 0
        }
        switch parser.positionals.count {
        case 0: Console.output(listing())
        case 1: Console.output(try description(of: parser.positionals[0]))
        default: throw UsageError("stages takes at most one stage name")
        }
        return 0
    }

    private func listing() -> String {
        let width = registry.stageNames.map(\.count).max() ?? 0
        return registry.plugins.map { plugin in
            let stages = plugin.stages.map { stage in stage.schema }.map { schema in
                "  \(schema.name.padding(to: width))  \(schema.summary)"
            }
            return ([plugin.name + " — " + plugin.summary] + stages).joined(separator: "\n")
        }.joined(separator: "\n\n")
    }

    private func description(of name: String) throws -> String {
        guard let entry = registry.entry(named: name) else {
            let hint = Suggestion.closest(to: name, in: registry.stageNames).map { " (did you mean '\($0)'?)" } ?? ""
            throw UsageError("unknown stage '\(name)'\(hint)")
        }
        let schema = entry.stage.schema
        var lines = ["\(schema.name) — \(schema.summary)", "", "usage: \(schema.usage)", "", "parameters:"]
        for parameter in schema.parameters {
            let requirement = parameter.isRequired ? "required"
                : parameter.defaultValue.map { "default \(parameter.type.format($0))" } ?? (parameter.acceptsAuto ? "default auto" : "optional")
            lines.append("  \(parameter.name)  \(parameter.type.summary); \(requirement)\(parameter.isPositional ? "; may be given without its name" : "")")
            lines.append("      \(parameter.help)")
        }
        lines += ["", "example: \(schema.example)", "plugin: \(entry.plugin)\(entry.origin.map { " (\($0))" } ?? "")"]
        return lines.joined(separator: "\n")
    }
}

extension String {
    func padding(to width: Int) -> String { self + String(repeating: " ", count: max(0, width - count)) }
}
