import ImagePipeCore

/// `flatten [background=white]` — the picture composited over a background colour (source-over,
/// as a screen shows it), its alpha channel gone: what a format without alpha needs.
public struct FlattenStage: Transform, DeclaredStage {
    public static let declaration = StageDeclaration(
        "flatten", summary: "Composite over a background color and drop alpha",
        example: "flatten background=#ffe4c4", start: FlattenStage(), [
            Param(\.background, "background", .color, default: .white,
                  help: "The color behind the picture: white, as ImageMagick's -flatten and this project's JPEG save (sharp and libvips default to black, which turns soft shadows and anti-aliased edges muddy on paper). A translucent background leaves alpha in the result."),
        ])

    public var background: Color

    public init(background: Color = .white) { self.background = background }

    public func outputSize(for input: Size) -> Size { input }

    public func explanation(for input: Size) -> String? {
        "composited over \(background)" + (background.isOpaque ? ", alpha dropped" : "")
    }

    /// A point stage: each row from the same row alone; the rows of an RGB picture are passed on
    /// as they are.
    public var stageClass: StageClass { .point }

    /// Alpha stays only under a translucent background.
    public func outputHasAlpha(inputHasAlpha: Bool) -> Bool { inputHasAlpha && !background.isOpaque }

    public func makeRows(_ rows: Range<Int>, from input: StageInput) throws -> Image {
        let image = input.pixels
        guard image.hasAlpha else { return image }
        return try Image.canvas(size: image.size, background: background, placing: image, at: (0, 0), blend: true)
    }
}
