import ImagePipeCore

/// `flop` — the picture mirrored left to right, as sharp's `flop`: lossless, RGB stays RGB.
public struct FlopStage: RearrangingStage, DeclaredStage {
    public static let declaration = StageDeclaration(
        "flop", summary: "Mirror left to right, lossless", example: "flop", start: FlopStage(), [])

    public init() {}

    public func outputSize(for input: Size) -> Size { input }

    /// Each row mirrored in itself: the run may stream it (a JPEG-to-JPEG `flop` decodes and
    /// encodes at once).
    public var stageClass: StageClass { .point }

    public func makeRows(_ rows: Range<Int>, from input: StageInput) throws -> Image { try input.pixels.flippedHorizontally() }

    public func rearrangement(for input: Size) -> PixelRearrangement? { .orient(.flop) }
}
