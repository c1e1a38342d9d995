import ImagePipeCore

/// `soften [radius=2]`: a box blur, each pixel the mean of the (2r+1)² pixels around it, edges
/// clamped. An output row comes from the input rows `radius` above and below it, so the stage is
/// an area stage: a streamed run hands it a window of rows around each strip, and it makes only
/// the strip's rows from it.
public struct SoftenStage: Transform, DeclaredStage {
    public static let declaration = StageDeclaration("soften", summary: "Soften the picture with a box blur", example: "soften 3",
                                                     start: SoftenStage(), [
        Param(\.radius, "radius", .integer(1...20), default: 2, positional: true, help: "How many pixels on each side a pixel is averaged with."),
    ])

    public var radius: Int

    public init(radius: Int = 2) { self.radius = radius }

    public func outputSize(for input: Size) -> Size { input }

    public var stageClass: StageClass { .area(radius: radius) }

    /// The same weight for each of the 2r+1 pixels, across and then down.
    private var box: Convolution {
        let taps = 2 * radius + 1
        return Convolution(separable: ConvolutionKernel(Array(repeating: 1 / Float(taps), count: taps)))
    }

    /// `input` holds the rows `radius` around `rows` (fewer at the picture's edges).
    public func makeRows(_ rows: Range<Int>, from input: StageInput) throws -> Image {
        try box.apply(to: input.pixels, rows: input.local(rows)) { $0.store() }
    }
}
