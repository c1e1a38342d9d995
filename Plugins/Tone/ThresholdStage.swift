import ImagePipeCore

/// `threshold [128] [grayscale=true]` — sharp's threshold: values at or above the threshold
/// become 255, the others 0. By default the value compared is the pixel's gray (linear-light
/// Rec. 709 luma, as `grayscale`), so the picture becomes black and white; with
/// `grayscale=false` each channel is compared on its own. Alpha is kept.
public struct ThresholdStage: Transform, DeclaredStage {
    public static let declaration = StageDeclaration(
        "threshold", summary: "Black and white: 255 where the gray is at or above the threshold, else 0",
        example: "threshold 100", start: ThresholdStage(), [
            Param(\.level, "level", .integer(0...255), default: 128, positional: true,
                  help: "Values at or above this become 255, below it 0 (128, as sharp's default)."),
            Param(\.grayscale, "grayscale", .boolean, default: true,
                  help: "Compare the pixel's gray (linear-light Rec. 709 luma) and write it to every channel, as sharp; false compares R, G and B each on its own."),
        ])

    public var level: Int
    public var grayscale: Bool

    public init(level: Int = 128, grayscale: Bool = true) {
        self.level = level
        self.grayscale = grayscale
    }

    public func outputSize(for input: Size) -> Size { input }

    public func explanation(for input: Size) -> String? {
        grayscale ? "gray ≥ \(level) → white, else black" : "each channel ≥ \(level) → 255, else 0"
    }

    /// Each pixel alone: the run may stream it.
    public var stageClass: StageClass { .point }
    /// Black and white when it compares luma.
    public var makesGray: Bool { grayscale }

    public func makeRows(_ rows: Range<Int>, from input: StageInput) throws -> Image {
        let image = input.pixels
        let table = (0..<256).map { $0 >= level ? UInt8(255) : 0 }
        guard grayscale else { return try image.mapChannels(table) }
        return try Luma.linearLight.map(image, colors: table.flatMap { [$0, $0, $0] })
    }
}
