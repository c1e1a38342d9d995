import ImagePipeCore

/// `flip` — the picture upside down (top to bottom), as sharp's `flip`: lossless, RGB stays RGB.
public struct FlipStage: RearrangingStage, DeclaredStage {
    public static let declaration = StageDeclaration(
        "flip", summary: "Mirror top to bottom (upside down), lossless", example: "flip", start: FlipStage(), [])

    public init() {}

    public func outputSize(for input: Size) -> Size { input }

    public func makeRows(_ rows: Range<Int>, from input: StageInput) throws -> Image { try input.pixels.flippedVertically() }

    public func rearrangement(for input: Size) -> PixelRearrangement? { .orient(.flip) }
}
