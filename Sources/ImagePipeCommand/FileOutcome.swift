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

    /// A run's notes as `--json` lists them: each with the stage's place and name, and for a
    /// stage of a branch's group, the group's name (`{1}`, `{2} {1}`) and the place in it.
    static func notes(of result: RunResult, in pipeline: Pipeline) -> [JSONValue] {
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
