import ImagePipeCore

/// `vignette [strength=60%]`: darkens the picture toward its corners. Each row depends on where
/// it lies in the picture, so the stage makes a strip's rows from the strip's place
/// (`input.top` in a picture of `input.picture`'s size): a streamed run then shows no bands at the strips' seams.
public struct VignetteStage: Transform, DeclaredStage {
    public static let declaration = StageDeclaration("vignette", summary: "Darken the picture toward its corners", example: "vignette 40%",
                                                     start: VignetteStage(), [
        Param(\.strength, "strength", .percentage(0...100), default: 60, positional: true, help: "How dark the corners get: 0% leaves the picture as it is."),
    ])

    public var strength: Double // in percent

    public init(strength: Double = 60) { self.strength = strength }

    public func outputSize(for input: Size) -> Size { input }

    public var stageClass: StageClass { .point }

    public func makeRows(_ rows: Range<Int>, from input: StageInput) throws -> Image {
        let (strip, position) = (input.pixels, input.position)
        let center = (x: Double(position.pictureSize.width) / 2, y: Double(position.pictureSize.height) / 2)
        let farthest = center.x * center.x + center.y * center.y, channels = strip.channelCount
        return try Image.make(size: strip.size, hasAlpha: strip.hasAlpha) { writer in
            for y in 0..<strip.height {
                let source = strip.row(y), target = writer.row(y)
                let dy = Double(position.top + y) + 0.5 - center.y
                for x in 0..<strip.width {
                    let dx = Double(x) + 0.5 - center.x
                    let factor = 1 - strength / 100 * (dx * dx + dy * dy) / farthest
                    for c in 0..<3 { target[x * channels + c] = UInt8((Double(source[x * channels + c]) * factor).rounded()) }
                    if channels == 4 { target[x * channels + 3] = source[x * channels + 3] }
                }
            }
        }
    }
}
