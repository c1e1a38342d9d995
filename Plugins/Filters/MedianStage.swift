import ImagePipeCore

/// `median [3]` — each channel replaced by its median over a SIZE×SIZE window (libvips'
/// `median`, ImageMagick's `-median`): removes specks and salt-and-pepper noise while keeping
/// edges, which a blur would soften. Edges extend by repeating the border pixels.
public struct MedianStage: Transform, DeclaredStage {
    public static let declaration = StageDeclaration(
        "median", summary: "Median filter over a SIZE×SIZE window: removes specks, keeps edges",
        example: "median 5", start: MedianStage(), [
            Param(\.size, "size", .integer(1...99), default: 3, positional: true,
                  help: "The window's side in pixels, odd so that the window is centered (3, as sharp's median); 1 changes nothing."),
        ])

    public var size: Int

    public init(size: Int = 3) { self.size = size }

    public func check() throws(ArgumentError) {
        guard size % 2 == 1 else {
            throw .parameter("size", "size \(size) is even; the window must be odd (3, 5, 7…) to be centered on its pixel")
        }
    }

    public func outputSize(for input: Size) -> Size { input }
    public var stageClass: StageClass { .area(radius: size / 2) }

    public func explanation(for input: Size) -> String? {
        "median of each channel over \(size)×\(size) pixels"
    }

    public func makeRows(_ rows: Range<Int>, from input: StageInput) throws -> Image {
        let local = input.local(rows)
        let made = size > 1 ? try MedianFilter(radius: size / 2).apply(to: input.pixels) : input.pixels
        // The filter makes the whole window; the rows asked for are the middle of it.
        return local == 0..<made.height ? made : try made.cropped(to: Rect(x: 0, y: local.lowerBound, width: made.width, height: local.count))
    }
}
