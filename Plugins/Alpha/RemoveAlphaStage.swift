import ImagePipeCore

/// `remove-alpha` — drops the alpha channel and keeps the colour as stored (sharp's
/// removeAlpha): transparent pixels show whatever colour they hold, often black. `flatten`
/// composites instead.
public struct RemoveAlphaStage: Transform, DeclaredStage {
    public static let declaration = StageDeclaration(
        "remove-alpha", summary: "Drop the alpha channel, keeping the stored color",
        example: "remove-alpha", start: RemoveAlphaStage(), [])

    public init() {}

    public func outputSize(for input: Size) -> Size { input }

    public func explanation(for input: Size) -> String? { "alpha dropped; color as stored" }

    /// A point stage: each row from the same row alone; the rows of an RGB picture are passed on
    /// as they are.
    public var stageClass: StageClass { .point }

    public func outputHasAlpha(inputHasAlpha: Bool) -> Bool { false }

    public func makeRows(_ rows: Range<Int>, from input: StageInput) throws -> Image {
        let image = input.pixels
        guard image.hasAlpha else { return image }
        return try image.mapRows(hasAlpha: false, workPerPixel: 2) { row in
            for x in 0..<row.width {
                let s = row.source + x * 4, t = row.target + x * 3
                t[0] = s[0]
                t[1] = s[1]
                t[2] = s[2]
            }
        }
    }
}
