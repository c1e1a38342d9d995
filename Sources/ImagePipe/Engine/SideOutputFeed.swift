/// A `tee`, or a `branch` group other than the last, as a point stage of a streamed run: each
/// strip that passes is handed, as it is, to the side output (`SideOutput`), and passed on
/// unchanged. Without an output (a survey's read, which writes nothing) it only passes the
/// strips on.
struct SideOutputFeed: Transform, DeclaredStage {
    static let declaration = StageDeclaration("tee", summary: "Hand the rows to another output as they pass, and pass them on",
                                              start: SideOutputFeed(output: nil), [])
    let output: SideOutput?
    /// A trace's feed of the decoded rows, before the first stage: after a reduced decode it
    /// hands on the reduced rows, which no other stage may see before the first (a resample).
    var tracesDecode = false

    static func == (a: SideOutputFeed, b: SideOutputFeed) -> Bool { a.output === b.output && a.tracesDecode == b.tracesDecode }

    func outputSize(for input: Size) -> Size { input }
    var stageClass: StageClass { .point }

    func makeRows(_ rows: Range<Int>, from input: StageInput) throws -> Image {
        try output?.write(input.pixels, top: input.top)
        return input.pixels
    }
}
