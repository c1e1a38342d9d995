import ImagePipeCore

/// `ensure-alpha [alpha=1]` — gives an RGB picture an alpha channel of one value (sharp's
/// ensureAlpha); a picture that has alpha is left as it is.
public struct EnsureAlphaStage: Transform, DeclaredStage {
    public static let declaration = StageDeclaration(
        "ensure-alpha", summary: "Add an alpha channel of one value if the picture has none",
        example: "ensure-alpha 0.5", start: EnsureAlphaStage(), [
            Param(\.alpha, "alpha", .number(0...1), default: 1, positional: true,
                  help: "The added channel's opacity, 0 (transparent) to 1 (opaque), as sharp's ensureAlpha; it is rounded to the nearest of 256 levels."),
        ])

    public var alpha: Double

    public init(alpha: Double = 1) { self.alpha = alpha }

    public func outputSize(for input: Size) -> Size { input }

    /// Each pixel gains its alpha alone: a point stage, whose rows are RGBA from here on.
    public var stageClass: StageClass { .point }

    public func outputHasAlpha(inputHasAlpha: Bool) -> Bool { true }

    public func explanation(for input: Size) -> String? {
        "alpha \(level) of 255 added where there is none"
    }

    /// The alpha byte.
    var level: UInt8 { UInt8((alpha * 255).rounded()) }

    public func makeRows(_ rows: Range<Int>, from input: StageInput) throws -> Image {
        let image = input.pixels
        guard !image.hasAlpha else { return image }
        let level = self.level
        return try image.mapRows(hasAlpha: true, workPerPixel: 2) { row in
            for x in 0..<row.width {
                let s = row.source + x * 3, t = row.target + x * 4
                t[0] = s[0]
                t[1] = s[1]
                t[2] = s[2]
                t[3] = level
            }
        }
    }
}
