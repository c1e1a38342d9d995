import ImagePipe

/// How one input of a run ended.
struct FileOutcome: Sendable {
    let input: String
    let outputs: [String]
    let inputSize: Size?
    let outputSize: Size?
    let seconds: Double
    /// The message for a failure, nil when done.
    let error: String?
    /// Passed over because its outputs exist (`--skip-existing`).
    let skipped: Bool

    var json: JSONValue {
        func size(_ size: Size?) -> JSONValue { size.map { .array([.number(Double($0.width)), .number(Double($0.height))]) } ?? .null }
        return .object([
            ("input", .string(input)), ("outputs", .array(outputs.map(JSONValue.string))),
            ("inputSize", size(inputSize)), ("outputSize", size(outputSize)),
            ("seconds", .number((seconds * 1000).rounded() / 1000)), ("error", error.map(JSONValue.string) ?? .null),
            ("skipped", .bool(skipped)),
        ])
    }
}
