import ImagePipe

/// `imagepipe stages [NAME]`: the stage list and each stage's help, from the schemas.
struct StagesCommand {
    let registry: Registry

    static let help = """
        usage: imagepipe stages [NAME] [--json]

        Without NAME, lists every stage with its summary, grouped by plugin. With NAME, shows
        the stage's usage, each parameter's type, default and help, and an example.

        Options:
        """ + "\n" + OptionTable.text(options)

    static let declaration = CommandDeclaration("stages", summary: "List the stages, or describe one",
                                                help: help, options: options) { try StagesCommand(registry: $0).main($1) }

    /// Bumped whenever the JSON's shape changes.
    static let schemaVersion = Registry.pluginSchemaVersion

    static let json = CommandFlag("--json", help: "The same as JSON, with \"schemaVersion\": \(schemaVersion)")
    static let options: [any OptionDeclaring] = [json]

    func main(_ arguments: [String]) throws -> Int32 {
        guard let parser = try OptionParser.parse(arguments, options: Self.options, help: Self.help) else { return 0 }
        let json = parser.has(Self.json)
        switch parser.positionals.count {
        case 0:
            Console.output(json ? JSONValue.object([
                ("schemaVersion", .number(Double(Self.schemaVersion))),
                ("plugins", .array(registry.plugins.map { plugin in
                    .object([("name", .string(plugin.name)), ("summary", .string(plugin.summary)),
                             ("origin", registry.origin(ofPlugin: plugin.name).map(JSONValue.string) ?? .null),
                             ("stages", .array(plugin.stages.map { stageJSON($0.schema) }))])
                })),
            ]).text : listing())
        case 1:
            let entry = try entry(named: parser.positionals[0])
            Console.output(json ? JSONValue.object([("schemaVersion", .number(Double(Self.schemaVersion))), ("stage", stageJSON(entry.schema))]).text
                                : description(of: entry))
        default: throw UsageError("stages takes at most one stage name")
        }
        return 0
    }

    /// Every line is shown through `TerminalText`: a plugin's summaries and help are its
    /// author's text, and an ESC or a right-to-left override in them would act on the terminal.
    private func listing() -> String {
        let width = registry.stageNames.map(\.count).max() ?? 0
        return registry.plugins.map { plugin in
            let stages = plugin.stages.map(\.schema).map { schema in
                "  \(schema.name.padding(to: width))  \(schema.summary)"
            }
            return ([plugin.name + " — " + plugin.summary] + stages).map(TerminalText.escaped).joined(separator: "\n")
        }.joined(separator: "\n\n")
    }

    private func entry(named name: String) throws -> Registry.Entry {
        guard let entry = registry.entry(named: name) else {
            throw UsageError(StageSynonyms.unknownStageMessage(name, in: registry.stageNames) + RemedyWording.suffix(for: .listStages))
        }
        return entry
    }

    private func stageJSON(_ schema: Schema) -> JSONValue {
        let entry = registry.entry(named: schema.name)
        guard case var .object(fields) = SchemaCoding.encode(schema) else { return .null }
        fields.insert(contentsOf: [("plugin", entry.map { .string($0.plugin) } ?? .null), ("origin", entry?.origin.map(JSONValue.string) ?? .null)], at: 4)
        return .object(fields)
    }

    func description(of entry: Registry.Entry) -> String {
        let schema = entry.schema
        var lines = ["\(schema.name) — \(schema.summary)", "", "usage: \(schema.usage)", "", "parameters:"]
        for parameter in schema.parameters {
            let requirement = parameter.isRequired ? "required"
                : parameter.defaultValue.map { "default \(parameter.type.format($0))" } ?? (parameter.acceptsAuto ? "default auto" : "optional")
            lines.append("  \(parameter.name)  \(parameter.type.summary); \(requirement)\(parameter.isPositional ? "; may be given without its name" : "")")
            lines.append("      \(parameter.help)")
        }
        if schema.name == Load.schema.name {
            // Which formats it decodes depends on the command line, not on the schema.
            lines += ["", "formats: \(LimitOptions.defaultFormats); others only with --allow-format (\(LimitOptions.otherFormats)),",
                      "recognized by their first bytes whatever the file's name"]
        }
        lines += ["", "example: \(schema.example)", "plugin: \(entry.plugin)\(entry.origin.map { " (\($0))" } ?? "")"]
        return lines.map(TerminalText.escaped).joined(separator: "\n")
    }
}

extension String {
    func padding(to width: Int) -> String { self + String(repeating: " ", count: max(0, width - count)) }
}
