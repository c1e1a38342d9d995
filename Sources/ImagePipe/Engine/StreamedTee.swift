/// A `tee` as a point stage of a streamed run: each strip that passes is handed, as it is, to
/// the tee's file (`TeeOutput`), and passed on unchanged. Without an output (a survey's read,
/// which writes nothing) it only passes the strips on.
struct StreamedTee: Transform, DeclaredStage {
    static let declaration = StageDeclaration("tee", summary: "Write the rows as they pass, and pass them on",
                                              start: StreamedTee(output: nil), [])
    let output: TeeOutput?

    static func == (a: StreamedTee, b: StreamedTee) -> Bool { a.output === b.output }

    func outputSize(for input: Size) -> Size { input }
    var stageClass: StageClass { .point }
    func apply(to image: Image) -> Image { image }

    func apply(to strip: Image, at position: StripPosition) throws -> Image {
        try output?.write(strip, top: position.top)
        return strip
    }
}
