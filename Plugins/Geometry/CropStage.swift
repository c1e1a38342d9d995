import ImagePipe

/// `crop X,Y,WxH` — cut a rectangle out, in pixels or percentages of the picture's sides
/// (`10%,10%,50%x50%`); the pixels are shared, not copied. A rectangle that does not lie wholly
/// inside the picture is refused when the pipeline is planned, before any decoding.
public struct CropStage: Transform, DeclaredStage {
    public static let declaration = StageDeclaration(
        "crop", summary: "Cut out a rectangle X,Y,WxH, in pixels or percentages (lossless)",
        example: "crop 10,20,300x200", start: CropStage(Rect(x: 0, y: 0, width: 1, height: 1)), [
            Param(\.rect, "rect", .cropRect(max: 100_000), positional: true,
                  help: "X,Y,WxH: the top-left corner and the size. Each of the four is whole pixels or a percentage of the picture's side on its axis (10%,10%,50%x50%; percentages, not unit fractions, so 0,0,1x1 can only mean one pixel). Percentages place both edges at the nearest pixel. The rectangle must lie inside the picture."),
        ])

    public var rect: CropRect

    public init(_ rect: CropRect) { self.rect = rect }
    public init(_ rect: Rect) { self.rect = CropRect(rect) }

    /// The rectangle in pixels on a picture of `input` size; throws when it is not inside.
    public func pixels(in input: Size) throws -> Rect {
        let pixels = rect.rect(in: input)
        guard pixels.isInside(input) else {
            let asPixels = rect == CropRect(pixels) ? "" : " (\(pixels.x),\(pixels.y),\(pixels.width)x\(pixels.height) in pixels)"
            throw StageError("the rectangle \(rect)\(asPixels) does not lie inside the \(input) picture: x + width must be at most \(input.width), y + height at most \(input.height), and each side at least 1")
        }
        return pixels
    }

    public func outputSize(for input: Size) throws -> Size { try pixels(in: input).size }

    public func explanation(for input: Size) throws -> String? {
        let pixels = try pixels(in: input)
        return "cut \(pixels.width)x\(pixels.height) at \(pixels.x),\(pixels.y) (pixels shared, no copy)"
    }

    public func apply(to image: Image) throws -> Image { try image.cropped(to: pixels(in: image.size)) }

    /// Output rows are the input rows `rect.y` further down, cut to the rectangle's columns: the
    /// streamed run keeps only the window, never the picture.
    public var stageClass: StageClass { .resample }

    public func inputRows(forOutput rows: Range<Int>, inputSize: Size) throws -> Range<Int> {
        let y = try pixels(in: inputSize).y
        return (rows.lowerBound + y)..<(rows.upperBound + y)
    }

    public func apply(toWindow window: Image, windowTop: Int, inputSize: Size, outputRows: Range<Int>) throws -> Image {
        let pixels = try pixels(in: inputSize)
        return try window.cropped(to: Rect(x: pixels.x, y: outputRows.lowerBound + pixels.y - windowTop, width: pixels.width, height: outputRows.count))
    }

    public func rearrangement(for input: Size) throws -> PixelRearrangement? { .crop(try pixels(in: input)) }
}
