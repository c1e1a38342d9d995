/// Schemas as JSON: what `imagepipe stages --json` prints and what a plugin loaded at run time
/// describes itself with. `decode` reads back what `encode` writes.
package enum SchemaCoding {
    package static func encode(_ schema: Schema) -> JSONValue {
        .object([
            ("name", .string(schema.name)), ("summary", .string(schema.summary)), ("usage", .string(schema.usage)),
            ("example", .string(schema.example)),
            ("parameters", .array(schema.parameters.map(encode))),
        ])
    }

    package static func encode(_ parameter: Parameter) -> JSONValue {
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

    /// The largest side a size, resize size or crop rectangle parameter may allow.
    static let largestSide = 1_000_000
    /// The most numbers a `numbers` parameter may take.
    static let mostNumbers = 65_536

    /// The keys `encode` writes for a stage and for a parameter (docs/extending.md lists them, a
    /// test holding the two to each other).
    package static let stageKeys: Set<String> = ["name", "summary", "usage", "example", "parameters"]
    package static let parameterKeys: Set<String> = ["name", "kind", "type", "default", "required", "positional", "auto", "help",
                                                     "range", "choices", "count"]
    /// The parameter kinds `decode` reads; any other is refused.
    package static let kinds: [String] = ["integer", "number", "size", "point", "anchor", "color", "angle", "percentage", "choice",
                                          "boolean", "string", "path", "resize-size", "position", "crop-rect", "numbers"]

    /// A schema from its JSON, or a reason it cannot be one. `strict` refuses keys `encode` does
    /// not write, so that a plugin whose description renamed a key is told so instead of getting
    /// a default in its place.
    package static func decode(_ json: JSONValue, strict: Bool = false) throws(StageError) -> Schema {
        guard let name = json["name"]?.stringValue, !name.isEmpty else { throw StageError("a stage without a name") }
        // Checked first, so that no later message quotes a name a terminal would obey.
        if let problem = DeclaredName.problem(name) { throw StageError("stage '\(DeclaredName.shown(name))' \(problem)") }
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
        if let problem = DeclaredName.problem(name) { throw StageError("stage '\(stage)': parameter '\(DeclaredName.shown(name))' \(problem)") }
        if strict, let unknown = json.objectKeys?.first(where: { !parameterKeys.contains($0) }) {
            throw StageError("stage '\(stage)': parameter '\(name)' has an unknown key '\(unknown)'")
        }
        func refused(_ reason: String) -> StageError { StageError("stage '\(stage)': parameter '\(name)' \(reason)") }
        var range: ClosedRange<Double>?
        if let bounds = json["range"] {
            guard let pair = bounds.arrayValue?.compactMap(\.numberValue), pair.count == 2, pair[0].isFinite, pair[1].isFinite,
                  pair[0] <= pair[1] else {
                throw refused("has a range that is not two finite numbers, the lower first")
            }
            range = pair[0]...pair[1]
        }
        /// A range's bound as a whole number; Int's own limits come back as they went (JSON holds
        /// them as the nearest Double, 2^63).
        func whole(_ value: Double) throws(StageError) -> Int {
            guard value == value.rounded() else { throw refused("has a range bound \(value) that is not a whole number") }
            if value == 0x1p63 { return Int.max }
            guard let integer = Int(exactly: value) else { throw refused("has a range bound \(value) past a whole number's limits") }
            return integer
        }
        /// The largest side a size-like parameter may take: its range's upper bound, at most a
        /// million pixels (sides past that overflow what a picture's bytes can be counted in).
        func largestSide() throws(StageError) -> Int {
            guard let upper = range?.upperBound else { return 100_000 }
            let side = try whole(upper)
            guard (1...Self.largestSide).contains(side) else { throw refused("allows sides up to \(upper); the most is \(Self.largestSide)") }
            return side
        }
        guard kinds.contains(kind) else { throw refused("has an unknown kind '\(DeclaredName.shown(kind))'") }
        let type: ParameterType
        switch kind {
        case "integer": type = .integer(try range.map { bounds throws(StageError) in try whole(bounds.lowerBound)...whole(bounds.upperBound) } ?? Int.min...Int.max)
        case "number": type = .number(range ?? -Double.greatestFiniteMagnitude...Double.greatestFiniteMagnitude)
        case "size": type = .size(max: try largestSide())
        case "point": type = .point
        case "anchor": type = .anchor
        case "color": type = .color
        case "angle": type = .angle(range ?? -3600...3600)
        case "percentage": type = .percentage(range ?? 0...100)
        case "choice":
            let words = json["choices"]?.arrayValue?.compactMap(\.stringValue) ?? []
            guard !words.isEmpty, Set(words).count == words.count else { throw refused("needs a list of choices, each named once") }
            type = .choice(words)
        case "boolean": type = .boolean
        case "string": type = .string
        case "path": type = .path
        case "resize-size": type = .resizeSize(max: try largestSide())
        case "position": type = .position
        case "crop-rect": type = .cropRect(max: try largestSide())
        case "numbers":
            var count = 1...64
            if let given = json["count"] {
                guard let pair = given.arrayValue?.compactMap(\.numberValue), pair.count == 2, pair.allSatisfy({ $0 == $0.rounded() }),
                      pair[0] >= 1, pair[0] <= pair[1], pair[1] <= Double(Self.mostNumbers) else {
                    throw refused("has a count that is not two whole numbers from 1 to \(Self.mostNumbers), the lower first")
                }
                count = Int(pair[0])...Int(pair[1])
            }
            type = .numbers(count: count, each: range ?? -1e9...1e9)
        default: throw refused("has an unknown kind '\(kind)'") // one of `kinds` without its case here
        }
        let acceptsAuto = json["auto"]?.boolValue ?? false
        let required = json["required"]?.boolValue ?? false
        if acceptsAuto, required || json["default"]?.stringValue.map({ $0 != "auto" }) == true {
            throw refused("accepts auto, which stands for a missing value, yet is required or has a default")
        }
        var defaultValue: Value?
        if !acceptsAuto, let text = json["default"]?.stringValue {
            do { defaultValue = try type.parse(text) } catch {
                throw refused("has a default '\(text)' its own type refuses: \(error.reason)")
            }
        }
        return Parameter(name, type, default: defaultValue, required: required,
                         positional: json["positional"]?.boolValue ?? false, auto: acceptsAuto, help: json["help"]?.stringValue ?? "")
    }
}
