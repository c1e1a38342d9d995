
/// How one input of a batch ended: written, failed (with why), or passed over on resuming.
public struct FileOutcome: Sendable {
    /// The input's path (for a pipeline that loads its own file, that file).
    public let input: String
    /// Every file written for it, in the pipeline's order.
    public let outputs: [String]
    /// The picture's size as decoded, when known.
    public let inputSize: Size?
    /// The written picture's size (nil for a branch, whose groups differ).
    public let outputSize: Size?
    /// How long it took.
    public let seconds: Double
    /// Why it failed, naming the input; nil when it did not.
    public let error: String?
    /// Passed over as done before (`Batch.resume`): its outputs exist, or the ledger says so.
    public let skipped: Bool
    /// What stages decided from the pixels (a smart crop's window), as `--json` lists them.
    public var notes: [JSONValue] = []

    package init(input: String, outputs: [String], inputSize: Size?, outputSize: Size?, seconds: Double, error: String?, skipped: Bool, notes: [JSONValue] = []) {
        (self.input, self.outputs, self.inputSize, self.outputSize, self.seconds, self.error, self.skipped, self.notes) =
            (input, outputs, inputSize, outputSize, seconds, error, skipped, notes)
    }

    /// A run's notes as `--json` lists them: each with the stage's place and name, and for a
    /// stage of a branch's group, the group's name (`{1}`, `{2} {1}`) and the place in it.
    package static func notes(of result: RunResult, in pipeline: Pipeline) -> [JSONValue] {
        func listed(_ notes: [Int: [StageNote]], of stages: [any Stage], group: String?) -> [JSONValue] {
            notes.sorted { $0.key < $1.key }.flatMap { index, notes in
                notes.map { note in
                    .object((group.map { [("group", JSONValue.string($0))] } ?? [])
                        + [("stage", .number(Double(index))), ("stageName", .string(stages[index].stageSchema.name)),
                           ("name", .string(note.name)), ("text", .string(note.text)), ("value", note.value)])
                }
            }
        }
        // Groups in the pipeline's order: {2} before {10}, a group before the groups under it.
        let groups = result.groupNotes.sorted { $0.key.lexicographicallyPrecedes($1.key) }.compactMap { path, notes in
            Branch.group(at: path, in: pipeline).map { listed(notes, of: $0.stages, group: Branch.label(of: path)) }
        }
        return listed(result.notes, of: pipeline.stages, group: nil) + groups.flatMap { $0 }
    }

    package var json: JSONValue { .object(jsonFields) }

    /// The fields of `json`, in order, for a line that adds its own (the ledger's).
    package var jsonFields: [(String, JSONValue)] {
        [
            ("input", .string(input)), ("outputs", .array(outputs.map(JSONValue.string))),
            ("inputSize", .dimensions(inputSize)), ("outputSize", .dimensions(outputSize)),
            ("seconds", .number((seconds * 1000).rounded() / 1000)), ("error", error.map(JSONValue.string) ?? .null),
            ("skipped", .bool(skipped)), ("notes", .array(notes)),
        ]
    }
}
