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
    /// What stages decided from the pixels (a smart crop's window), for `--json`.
    var notes: [JSONValue] = []

    /// A run's notes as `--json` lists them: each with the stage's place and name.
    static func notes(of result: RunResult, in pipeline: Pipeline) -> [JSONValue] {
        result.notes.sorted { $0.key < $1.key }.flatMap { index, notes in
            notes.map { note in
                .object([("stage", .number(Double(index))), ("stageName", .string(pipeline.stages[index].stageSchema.name)),
                         ("name", .string(note.name)), ("text", .string(note.text)), ("value", note.value)])
            }
        }
    }

    var json: JSONValue { .object(jsonFields) }

    /// The fields of `json`, in order, for a line that adds its own (the ledger's).
    var jsonFields: [(String, JSONValue)] {
        [
            ("input", .string(input)), ("outputs", .array(outputs.map(JSONValue.string))),
            ("inputSize", .dimensions(inputSize)), ("outputSize", .dimensions(outputSize)),
            ("seconds", .number((seconds * 1000).rounded() / 1000)), ("error", error.map(JSONValue.string) ?? .null),
            ("skipped", .bool(skipped)), ("notes", .array(notes)),
        ]
    }
}
