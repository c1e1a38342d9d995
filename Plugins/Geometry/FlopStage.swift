import ImagePipe

/// `flop` — the picture mirrored left to right, as sharp's `flop`: lossless, RGB stays RGB.
public struct FlopStage: Transform, DeclaredStage {
    public static let declaration = StageDeclaration(
        "flop", summary: "Mirror left to right, lossless", example: "flop", start: FlopStage(), [])

    public init() {}

    public func outputSize(for input: Size) -> Size { input }

    public func apply(to image: Image) throws -> Image { try image.flippedHorizontally() }
}
