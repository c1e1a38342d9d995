/// A JSON value with a writer and a reader, without Foundation: for `imagepipe stages --json`,
/// `--json` batch output and the schemas plugins describe themselves with.
public enum JSONValue: Equatable, Sendable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    /// Keys in order, as written.
    case object([(String, JSONValue)])

    public static func == (a: JSONValue, b: JSONValue) -> Bool { a.text == b.text }

    public subscript(key: String) -> JSONValue? {
        if case let .object(pairs) = self { return pairs.first { $0.0 == key }?.1 }
        return nil
    }

    public var stringValue: String? { if case let .string(value) = self { value } else { nil } }
    public var numberValue: Double? { if case let .number(value) = self { value } else { nil } }
    public var boolValue: Bool? { if case let .bool(value) = self { value } else { nil } }
    public var arrayValue: [JSONValue]? { if case let .array(value) = self { value } else { nil } }
    /// An object's keys in their order.
    public var objectKeys: [String]? { if case let .object(pairs) = self { pairs.map(\.0) } else { nil } }

    /// Compact JSON text, keys in their order.
    public var text: String {
        switch self {
        case .null: return "null"
        case let .bool(value): return value ? "true" : "false"
        case let .number(value): return NumberFormat.text(value)
        case let .string(value): return JSONValue.quote(value)
        case let .array(values): return "[" + values.map(\.text).joined(separator: ",") + "]"
        case let .object(pairs): return "{" + pairs.map { JSONValue.quote($0.0) + ":" + $0.1.text }.joined(separator: ",") + "}"
        }
    }

    package static func quote(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            // Every control character, and the two separators that end a line in JavaScript and in
            // some editors and terminals (a name holding U+2028 must not look like two records).
            case _ where scalar.value < 0x20 || scalar.value == 0x7F || scalar.value == 0x2028 || scalar.value == 0x2029:
                let hex = String(scalar.value, radix: 16)
                result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }

    /// The deepest nesting of arrays and objects the reader accepts: the reader recurses once per
    /// level, so without a limit a line of half a million `[` overflows the stack. No document
    /// this project reads or writes comes near it.
    public static let maxDepth = 128

    /// Parses JSON text; nil when it is not valid JSON (or nests deeper than `maxDepth`).
    public static func parse(_ text: String) -> JSONValue? { try? parsing(text) }

    /// Parses JSON text; throws a `ParseError` saying why it is not valid JSON.
    public static func parsing(_ text: String) throws(ParseError) -> JSONValue {
        var reader = Reader(scalars: Array(text.unicodeScalars))
        guard let value = reader.value() else { throw ParseError(reason: reader.tooDeep ? "nested deeper than \(maxDepth) levels" : "not valid JSON") }
        reader.skipSpace()
        guard reader.atEnd else { throw ParseError(reason: "not valid JSON") }
        return value
    }

    /// Why text is not JSON the reader takes.
    public struct ParseError: Error, CustomStringConvertible, Sendable {
        public let reason: String
        public var description: String { reason }
    }

    private struct Reader {
        let scalars: [Unicode.Scalar]
        var index = 0
        var depth = 0
        /// Set when `value()` failed because of `maxDepth`, for the message.
        var tooDeep = false

        var atEnd: Bool { index >= scalars.count }

        mutating func skipSpace() {
            while index < scalars.count, [" ", "\n", "\r", "\t"].contains(scalars[index]) { index += 1 }
        }

        mutating func take(_ literal: String) -> Bool {
            let expected = Array(literal.unicodeScalars)
            guard index + expected.count <= scalars.count, Array(scalars[index..<index + expected.count]) == expected else { return false }
            index += expected.count
            return true
        }

        mutating func value() -> JSONValue? {
            skipSpace()
            guard index < scalars.count else { return nil }
            switch scalars[index] {
            case "n": return take("null") ? .null : nil
            case "t": return take("true") ? .bool(true) : nil
            case "f": return take("false") ? .bool(false) : nil
            case "\"": return string().map(JSONValue.string)
            case "[":
                guard enter() else { return nil }
                defer { depth -= 1 }
                index += 1
                var values: [JSONValue] = []
                skipSpace()
                if take("]") { return .array(values) }
                while true {
                    guard let element = value() else { return nil }
                    values.append(element)
                    skipSpace()
                    if take("]") { return .array(values) }
                    guard take(",") else { return nil }
                }
            case "{":
                guard enter() else { return nil }
                defer { depth -= 1 }
                index += 1
                var pairs: [(String, JSONValue)] = []
                skipSpace()
                if take("}") { return .object(pairs) }
                while true {
                    skipSpace()
                    guard let key = string() else { return nil }
                    skipSpace()
                    guard take(":"), let element = value() else { return nil }
                    pairs.append((key, element))
                    skipSpace()
                    if take("}") { return .object(pairs) }
                    guard take(",") else { return nil }
                }
            default:
                let start = index
                while index < scalars.count, "+-0123456789.eE".unicodeScalars.contains(scalars[index]) { index += 1 }
                var digits = ""
                digits.unicodeScalars.append(contentsOf: scalars[start..<index])
                // JSON has no infinity: `1e999` (which Double reads as one) is refused.
                guard let number = Double(digits), number.isFinite else { return nil }
                return .number(number)
            }
        }

        /// One level deeper, unless that passes `maxDepth`.
        mutating func enter() -> Bool {
            guard depth < JSONValue.maxDepth else {
                tooDeep = true
                return false
            }
            depth += 1
            return true
        }

        mutating func string() -> String? {
            guard take("\"") else { return nil }
            var result = ""
            while index < scalars.count {
                let scalar = scalars[index]
                index += 1
                switch scalar {
                case "\"": return result
                case "\\":
                    guard index < scalars.count else { return nil }
                    let escape = scalars[index]
                    index += 1
                    switch escape {
                    case "n": result += "\n"
                    case "t": result += "\t"
                    case "r": result += "\r"
                    case "b": result += "\u{8}"
                    case "f": result += "\u{C}"
                    case "u":
                        guard index + 4 <= scalars.count else { return nil }
                        var hex = ""
                        hex.unicodeScalars.append(contentsOf: scalars[index..<index + 4])
                        index += 4
                        guard let code = UInt32(hex, radix: 16), let decoded = Unicode.Scalar(code) else { return nil }
                        result.unicodeScalars.append(decoded)
                    default: result.unicodeScalars.append(escape)
                    }
                default: result.unicodeScalars.append(scalar)
                }
            }
            return nil
        }
    }
}
