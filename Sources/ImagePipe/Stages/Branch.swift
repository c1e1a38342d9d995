/// `branch { STAGES } { STAGES } …`: each group of stages runs on the picture as it is here and
/// ends in its own `save PATH`, so one decode gives several outputs, each made from the same
/// picture rather than one from another (`tee` goes on with the picture it wrote):
///
///     load | branch { resize 1280x | save {stem}-1280.jpg } { resize 640x | save {stem}-640.jpg }
///
/// The last stage of a pipeline, as `save` is; a group may end in a branch of its own.
public struct Branch: Sink, DeclaredStage {
    public static let declaration = StageDeclaration(
        "branch", summary: "Run each group { … } on the picture as it is here, each to its own save (one decode, several outputs)",
        example: "branch { resize 640x | save {stem}-640.jpg } { resize 320x | save {stem}-320.jpg }", start: Branch(), [])

    /// The groups, in order: each a pipeline whose source is this point of the outer one.
    public var groups: [Pipeline]

    public init(groups: [Pipeline] = []) { self.groups = groups }

    public static func == (a: Branch, b: Branch) -> Bool { a.groups.map(\.text) == b.groups.map(\.text) }

    public var text: String {
        let groups = self.groups.map { group in
            let lines = group.stages.dropFirst().map(\.text).joined(separator: "\n").split(separator: "\n", omittingEmptySubsequences: false)
            return "{\n" + lines.map { "  " + $0 }.joined(separator: "\n") + "\n}"
        }
        return (["branch"] + groups).joined(separator: " ")
    }

    public var filesRead: [String] { groups.flatMap { $0.stages.dropFirst().flatMap(\.filesRead) } }

    /// Every file the groups write, in order.
    public func destinations(in context: RunContext) throws -> [String] { try groups.flatMap { try $0.outputs(in: context) } }

    public func destination(in context: RunContext) throws -> String { try destinations(in: context).first ?? "-" }

    public func write(_ image: Image, in context: RunContext) throws -> String { try writeAll(image, in: context).first ?? "-" }

    /// Runs every group on `image`; returns every file written.
    public func writeAll(_ image: Image, in context: RunContext) throws -> [String] {
        try groups.flatMap { try $0.runGroup(on: image, in: context).files }.map(\.path)
    }

    /// The same, telling `observe` of every stage of every group (a trace shows the tree), and
    /// giving what the groups' stages noted. `path` is that of the group this branch ends ([]
    /// for the pipeline itself).
    func writeAll(_ image: Image, in context: RunContext, observe: ((StageEvent) throws -> Void)?,
                  numbering: Pipeline.EventNumbering, path: [Int]) throws -> (files: [WrittenFile], groupNotes: RunResult.GroupNotes) {
        var files: [WrittenFile] = [], notes: RunResult.GroupNotes = [:]
        for (offset, pipeline) in groups.enumerated() {
            let made = try pipeline.runGroup(on: image, in: context, observe: observe, numbering: numbering, path: path + [offset + 1])
            files += made.files
            notes.merge(made.groupNotes) { _, later in later }
        }
        return (files, notes)
    }

    /// How a trace and `run --json` name the group at `path`: `{1}`, `{2} {1}`.
    public static func label(of path: [Int]) -> String { path.map { "{\($0)}" }.joined(separator: " ") }

    /// The group of `pipeline` at `path`, through the branches that end it and its groups; nil
    /// when there is none.
    public static func group(at path: [Int], in pipeline: Pipeline) -> Pipeline? {
        var group = pipeline
        for number in path {
            guard let branch = group.sink as? Branch, branch.groups.indices.contains(number - 1) else { return nil }
            group = branch.groups[number - 1]
        }
        return group
    }
}
