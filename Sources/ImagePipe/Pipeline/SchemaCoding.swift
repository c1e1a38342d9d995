/// Schemas as JSON: what `imagepipe stages --json` prints and what a plugin loaded at run time
/// describes itself with. `decode` reads back what `encode` writes.
public enum SchemaCoding {
    public static func encode(_ schema: Schema) -> JSONValue {
        .object([
            ("name", .string(schema.name)), ("summary", .string(schema.summary)), ("usage", .string(schema.usage)),
            ("example", .string(schema.example)),
            ("parameters", .array(schema.parameters.map(encode))),
        ])
    }

    public static func encode(_ parameter: Parameter) -> JSONValue {
        var fields: [(String, JSONValue)] = [
            ("name", .string(parameter.name)), ("kind", .string(parameter.type.kind)), ("type", .string(parameter.type.summary)),
            ("default", parameter.defaultValue.map { .string(parameter.type.format($0)) } ?? (parameter.acceptsAuto ? .string("auto") : .null)),
            ("required", .bool(parameter.isRequired)), ("positional", .bool(parameter.isPositional)),
            ("auto", .bool(parameter.acceptsAuto)), ("help", .string(parameter.help)),
        ]
        if let range = parameter.type.range { fields.append(("range", .array([.number(range.lowerBound), .number(range.upperBound)]))) }
        switch parameter.type {
        case let .choice(options): fields.append(("choices", .array(options.map(JSONValue.string))))
        case let .numbers(count, _): fields.append(("count", .array([.number(Double(count.lowerBound)), .number(Double(count.upperBound))])))
        default: break
        }
        return .object(fields)
    }

    /// The keys `encode` writes for a stage and for a parameter.
    static let stageKeys: Set<String> = ["name", "summary", "usage", "example", "parameters"]
    static let parameterKeys: Set<String> = ["name", "kind", "type", "default", "required", "positional", "auto", "help",
                                             "range", "choices", "count"]

    /// A schema from its JSON, or a reason it cannot be one. `strict` refuses keys `encode` does
    /// not write, so that a plugin whose description renamed a key is told so instead of getting
    /// a default in its place.
    public static func decode(_ json: JSONValue, strict: Bool = false) throws(StageError) -> Schema {
        guard let name = json["name"]?.stringValue, !name.isEmpty else { throw StageError("a stage without a name") }
        if strict, let unknown = json.objectKeys?.first(where: { !stageKeys.contains($0) }) {
            throw StageError("stage '\(name)' has an unknown key '\(unknown)'")
        }
        guard let list = json["parameters"]?.arrayValue else { throw StageError("stage '\(name)' has no parameter list") }
        var parameters: [Parameter] = []
        for item in list { parameters.append(try decodeParameter(item, stage: name, strict: strict)) }
        guard Set(parameters.map(\.name)).count == parameters.count else { throw StageError("stage '\(name)' names a parameter twice") }
        return Schema(name: name, summary: json["summary"]?.stringValue ?? "", parameters: parameters, example: json["example"]?.stringValue)
    }

    private static func decodeParameter(_ json: JSONValue, stage: String, strict: Bool) throws(StageError) -> Parameter {
        guard let name = json["name"]?.stringValue, let kind = json["kind"]?.stringValue else {
            throw StageError("stage '\(stage)' has a parameter without a name or kind")
        }
        if strict, let unknown = json.objectKeys?.first(where: { !parameterKeys.contains($0) }) {
            throw StageError("stage '\(stage)': parameter '\(name)' has an unknown key '\(unknown)'")
        }
        let bounds = json["range"]?.arrayValue?.compactMap(\.numberValue)
        let range = bounds.flatMap { $0.count == 2 && $0[0] <= $0[1] ? $0[0]...$0[1] : nil }
        let type: ParameterType
        switch kind {
        case "integer": type = .integer(range.map { Int($0.lowerBound)...Int($0.upperBound) } ?? Int.min...Int.max)
        case "number": type = .number(range ?? -Double.greatestFiniteMagnitude...Double.greatestFiniteMagnitude)
        case "size": type = .size(max: Int(range?.upperBound ?? 100_000))
        case "point": type = .point
        case "anchor": type = .anchor
        case "color": type = .color
        case "angle": type = .angle(range ?? -3600...3600)
        case "percentage": type = .percentage(range ?? 0...100)
        case "choice": type = .choice(json["choices"]?.arrayValue?.compactMap(\.stringValue) ?? [])
        case "boolean": type = .boolean
        case "string": type = .string
        case "path": type = .path
        case "resize-size": type = .resizeSize(max: Int(range?.upperBound ?? 100_000))
        case "position": type = .position
        case "crop-rect": type = .cropRect(max: Int(range?.upperBound ?? 100_000))
        case "numbers":
            let count = json["count"]?.arrayValue?.compactMap(\.numberValue) ?? []
            type = .numbers(count: count.count == 2 ? Int(count[0])...Int(count[1]) : 1...64, each: range ?? -1e9...1e9)
        default: throw StageError("stage '\(stage)': parameter '\(name)' has an unknown kind '\(kind)'")
        }
        let acceptsAuto = json["auto"]?.boolValue ?? false
        var defaultValue: Value?
        if !acceptsAuto, let text = json["default"]?.stringValue {
            do { defaultValue = try type.parse(text) } catch {
                throw StageError("stage '\(stage)': parameter '\(name)' has a default '\(text)' its own type refuses: \(error.reason)")
            }
        }
        return Parameter(name, type, default: defaultValue, required: json["required"]?.boolValue ?? false,
                         positional: json["positional"]?.boolValue ?? false, auto: acceptsAuto, help: json["help"]?.stringValue ?? "")
    }
}
