import ImagePipe

/// The editor's reading of a request body as JSON: the nesting is measured first, in one pass
/// without recursion, so a body of nested brackets is refused before the recursive reader
/// (`JSONValue.parse`) would go as deep as it is.
enum EditJSON {
    static func parse(_ body: [UInt8], maxDepth: Int) throws(EditRequestError) -> JSONValue {
        guard depth(body, stoppingPast: maxDepth) <= maxDepth else {
            throw EditRequestError("the state is nested deeper than \(maxDepth) levels")
        }
        guard let value = JSONValue.parse(String(decoding: body, as: UTF8.self)) else {
            throw EditRequestError("the body is not JSON")
        }
        return value
    }

    /// The deepest nesting of `[` and `{` outside strings, counted up to `limit + 1`.
    static func depth(_ body: [UInt8], stoppingPast limit: Int) -> Int {
        var depth = 0, deepest = 0
        var inString = false, escaped = false
        for byte in body {
            if inString {
                if escaped { escaped = false } else if byte == UInt8(ascii: "\\") { escaped = true } else if byte == UInt8(ascii: "\"") { inString = false }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                depth += 1
                deepest = max(deepest, depth)
                if deepest > limit { return deepest }
            case UInt8(ascii: "]"), UInt8(ascii: "}"): depth -= 1
            default: break
            }
        }
        return deepest
    }
}
