import ImagePipeCore

/// `linear [a=1] [b=0]` — out = a · in + b on each colour channel, in levels (0…255), rounded
/// and clamped: sharp's and libvips' linear. `linear 1.2 -20` raises the contrast.
public struct LinearStage: Transform, DeclaredStage {
    public static let declaration = StageDeclaration(
        "linear", summary: "out = a · in + b on each color channel (levels 0…255)",
        example: "linear 1.3 -30", start: LinearStage(), [
            Param(\.a, "a", .number(-100...100), default: 1, positional: true,
                  help: "The slope: above 1 raises the contrast, below 1 lowers it, negative inverts."),
            Param(\.b, "b", .number(-25_500...25_500), default: 0, positional: true,
                  help: "The offset in levels of 255, added after multiplying."),
        ])

    public var a: Double
    public var b: Double

    public init(a: Double = 1, b: Double = 0) {
        self.a = a
        self.b = b
    }

    public func outputSize(for input: Size) -> Size { input }

    public func explanation(for input: Size) -> String? {
        "out = \(NumberFormat.short(a)) · in + \(NumberFormat.short(b)), clamped to 0…255"
    }

    /// Each pixel alone: the run may stream it.
    public var stageClass: StageClass { .point }

    public func makeRows(_ rows: Range<Int>, from input: StageInput) throws -> Image {
        try input.pixels.mapChannels((0..<256).map { UInt8(min(255, max(0, (a * Double($0) + b).rounded()))) })
    }
}
