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

    var json: JSON {
        func size(_ size: Size?) -> JSON { size.map { .array([.number(Double($0.width)), .number(Double($0.height))]) } ?? .null }
        return .object([
            ("input", .string(input)), ("outputs", .array(outputs.map(JSON.string))),
            ("inputSize", size(inputSize)), ("outputSize", size(outputSize)),
            ("seconds", .number((seconds * 1000).rounded() / 1000)), ("error", error.map(JSON.string) ?? .null),
        ])
    }
}
