import ImagePipeCore

/// `square`: cuts the largest centered square out of the picture, as an avatar is cut. Its output
/// rows are a band of the input's rows at another size, so it is a resample stage: it names the
/// input rows each strip of output needs, and makes the strip from a window of exactly those.
public struct SquareStage: Transform, DeclaredStage {
    public static let declaration = StageDeclaration("square", summary: "Cut the largest centered square", example: "square",
                                                     start: SquareStage(), [])

    public init() {}

    public func outputSize(for input: Size) -> Size { square(in: input).size }

    public var stageClass: StageClass { .resample }

    /// The square's place in a picture of `size`.
    private func square(in size: Size) -> Rect {
        let side = min(size.width, size.height)
        return Rect(x: (size.width - side) / 2, y: (size.height - side) / 2, width: side, height: side)
    }

    public func apply(to image: Image) throws -> Image { try image.cropped(to: square(in: image.size)) }

    /// Output rows `rows` are the input's rows as far down as the square's top.
    public func inputRows(forOutput rows: Range<Int>, inputSize: Size) throws -> Range<Int> {
        let top = square(in: inputSize).y
        return (rows.lowerBound + top)..<(rows.upperBound + top)
    }

    /// `window` holds input rows from `windowTop`, at the input's full width.
    public func apply(toWindow window: Image, windowTop: Int, inputSize: Size, outputRows: Range<Int>) throws -> Image {
        let square = square(in: inputSize)
        return try window.cropped(to: Rect(x: square.x, y: square.y + outputRows.lowerBound - windowTop, width: square.width, height: outputRows.count))
    }
}
