/// What a save into a format without alpha (JPEG) does to a picture with alpha, as the last
/// level of a streamed run: each row composited over the save's `background`, as
/// `Image.flattened(onto:)` does the whole picture, so that a cut-out streams into a JPEG too.
struct AlphaFlattening: Transform, DeclaredStage {
    static let declaration = StageDeclaration("flatten", summary: "Composite over the save's background: the format has no alpha",
                                              start: AlphaFlattening(background: .white), [])
    var background: Color

    func outputSize(for input: Size) -> Size { input }
    var stageClass: StageClass { .point }
    func outputHasAlpha(inputHasAlpha: Bool) -> Bool { false }
    func makeRows(_ rows: Range<Int>, from input: StageInput) throws -> Image { try input.pixels.flattened(onto: background) }
}
