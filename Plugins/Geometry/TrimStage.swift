import ImagePipe

/// `trim [threshold=10] [background=auto]` — cut away a uniform border, as sharp's `trim`: the
/// smallest rectangle holding every pixel that differs from the background by more than the
/// threshold in some channel.
///
/// Its output size depends on the pixels, so the plan gives the input size as an upper bound
/// (`outputSizeIsUpperBound`) and `explain` says "at most".
public struct TrimStage: Transform, DeclaredStage {
    public static let declaration = StageDeclaration(
        "trim", summary: "Cut away a uniform border (its size is known only after decoding)",
        example: "trim threshold=20", start: TrimStage(), [
            Param(\.threshold, "threshold", .integer(0...255), default: 10,
                  help: "How far (0…255, in any channel, alpha included) a pixel may be from the background and still count as border; 10 as sharp."),
            Param(\.background, "background", .color, auto: true,
                  help: "The border's color; auto takes the top-left pixel's, as sharp."),
        ])

    public var threshold: Int
    public var background: Color?

    public init(threshold: Int = 10, background: Color? = nil) {
        self.threshold = threshold
        self.background = background
    }

    public var outputSizeIsUpperBound: Bool { true }

    /// The largest it can be: nothing trimmed.
    public func outputSize(for input: Size) -> Size { input }

    public func explanation(for input: Size) -> String? {
        "at most \(input): the border (within \(threshold) of \(background.map { "\($0)" } ?? "the top-left pixel's color")) is found after decoding"
    }

    /// The rectangle that stays, nil when the picture is all border (it is then kept whole, as
    /// there would be nothing left).
    public func content(of image: Image) -> Rect? {
        image.contentBounds(background: background ?? image.pixel(x: 0, y: 0), threshold: threshold)
    }

    public func apply(to image: Image) throws -> Image {
        guard let rect = content(of: image) else { return image }
        return try image.cropped(to: rect)
    }
}
