import ImagePipeCore

/// `negate [alpha=false]` — every colour channel v becomes 255 − v; alpha too if asked.
public struct NegateStage: Transform, DeclaredStage {
    public static let declaration = StageDeclaration(
        "negate", summary: "The photographic negative: 255 − v in each color channel",
        example: "negate", start: NegateStage(), [
            Param(\.alpha, "alpha", .boolean, default: false,
                  help: "Negate alpha as well. false, as ImageMagick's -negate: sharp and libvips negate alpha by default, which turns a cut-out inside out (its transparent background opaque)."),
        ])

    public var alpha: Bool

    public init(alpha: Bool = false) { self.alpha = alpha }

    public func outputSize(for input: Size) -> Size { input }

    public func explanation(for input: Size) -> String? {
        alpha ? "255 − v in every channel, alpha too" : "255 − v in R, G and B; alpha kept"
    }

    /// Each pixel alone: the run may stream it.
    public var stageClass: StageClass { .point }

    public func makeRows(_ rows: Range<Int>, from input: StageInput) throws -> Image {
        let image = input.pixels
        let inverse = (0...255).map { UInt8(255 - $0) }
        return try image.mapChannels(red: inverse, green: inverse, blue: inverse, alpha: alpha ? inverse : nil)
    }
}
