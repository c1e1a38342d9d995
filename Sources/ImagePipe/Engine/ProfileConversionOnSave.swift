/// What a save that converts colors does (`profile=srgb`, a profile file, `keep` back to the
/// input's own), as the last stage of a streamed run: each strip converted from the picture's
/// profile to the one written, as `Image.preparedForSaving` converts the whole picture. Little
/// CMS maps every pixel on its own, so strips give the whole picture's bytes.
struct ProfileConversionOnSave: Transform, DeclaredStage {
    static let declaration = StageDeclaration("convert for the save", summary: "Convert the colors to the profile the save writes",
                                              start: ProfileConversionOnSave(from: .sRGB, to: .sRGB), [])
    var from: ICCProfile
    var to: ICCProfile

    func outputSize(for input: Size) -> Size { input }
    var stageClass: StageClass { .point }
    func makeRows(_ rows: Range<Int>, from input: StageInput) throws -> Image { try input.pixels.converted(from: from, to: to, intent: .perceptual) }

    static func == (a: Self, b: Self) -> Bool { a.from.bytes == b.from.bytes && a.to.bytes == b.to.bytes }
}
