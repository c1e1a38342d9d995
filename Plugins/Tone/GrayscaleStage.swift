import ImagePipeCore

/// `grayscale [linear=true]` — Rec. 709 luma in every channel: the picture stays RGB (or RGBA,
/// alpha untouched) so that later stages and formats see the layout they expect; only the
/// values become grey.
public struct GrayscaleStage: Transform, DeclaredStage {
    public static let declaration = StageDeclaration(
        "grayscale", summary: "Rec. 709 luma in every channel (RGB stays RGB)",
        example: "grayscale", start: GrayscaleStage(), [
            Param(\.linear, "linear", .boolean, default: true,
                  help: "Weigh the channels in linear light (0.2126 R + 0.7152 G + 0.0722 B on intensities, then the sRGB curve put back), as libvips' colorspace b-w and sharp's grayscale (which round the weights to 0.2, 0.7, 0.1: red gives 124 there, 127 here); false weighs the encoded values (Y′, as ImageMagick's -colorspace Gray), which renders saturated colors darker."),
        ])

    public var linear: Bool

    public init(linear: Bool = true) { self.linear = linear }

    public func outputSize(for input: Size) -> Size { input }

    public func explanation(for input: Size) -> String? {
        linear ? "Rec. 709 luma of linear light, in R, G and B" : "Rec. 709 luma Y′ of the sRGB values, in R, G and B"
    }

    /// Each pixel alone: the run may stream it.
    public var stageClass: StageClass { .point }
    /// R = G = B: JPEG is written gray.
    public var makesGray: Bool { true }

    public func makeRows(_ rows: Range<Int>, from input: StageInput) throws -> Image {
        try (linear ? Luma.linearLight : Luma.encoded).map(input.pixels, colors: Luma.grays)
    }
}
