import ImagePipeCore

/// `trim [threshold=10] [background=auto] [line-art=false]` — cut away a uniform border, as
/// sharp's `trim` and libvips' `find_trim`: the smallest rectangle holding every pixel that
/// differs from the background by more than the threshold in some channel.
///
/// Its output size depends on the pixels, so the plan gives the input size as an upper bound
/// (`sizeIsUpperBound`) and `explain` says "at most". A streamed run surveys the picture
/// first (`ContentBoxScanner`, which the whole picture's `contentBounds` uses too), then crops
/// it as `crop` does, strip by strip.
public struct TrimStage: Transform, DeclaredStage, SurveyingStage {
    public static let declaration = StageDeclaration(
        "trim", summary: "Cut away a uniform border (its size is known only after decoding; an animation's first frame decides it)",
        example: "trim threshold=20", start: TrimStage(), [
            Param(\.threshold, "threshold", .integer(0...255), default: 10,
                  help: "How far (0…255, in any channel, alpha included) a pixel may be from the background and still count as border; 10 as sharp."),
            Param(\.background, "background", .color, auto: true,
                  help: "The border's color; auto takes the top-left pixel's, as sharp."),
            Param(\.lineArt, "line-art", .boolean, default: false,
                  help: "false counts a pixel as content only when most of its 3×3 neighborhood differs too (the median libvips' find_trim takes), so JPEG ringing and noise along a border are cut with it; true counts every pixel, for drawings whose one-pixel lines must stay, as libvips' line_art."),
        ])

    public var threshold: Int
    public var background: Color?
    public var lineArt: Bool

    public init(threshold: Int = 10, background: Color? = nil, lineArt: Bool = false) {
        self.threshold = threshold
        self.background = background
        self.lineArt = lineArt
    }

    public var sizeIsUpperBound: Bool { true }

    /// The largest it can be: nothing trimmed.
    public func outputSize(for input: Size) -> Size { input }

    public func explanation(for input: Size) -> String? {
        "at most \(input): the border (within \(threshold) of \(background.map { "\($0)" } ?? "the top-left pixel's color")) is found after decoding"
    }

    /// The rectangle that stays, nil when the picture is all border (it is then kept whole, as
    /// there would be nothing left). An animation's frames all take the first frame's.
    public func content(of image: Image) throws -> Rect? {
        try FrameDecisions.decide { try image.contentBounds(background: background ?? image.pixel(x: 0, y: 0), threshold: threshold, smoothing: !lineArt) }
    }

    /// Crops to the content and notes the box kept (`run --json`, `explain --pixels`).
    public func makeRows(_ rows: Range<Int>, from input: StageInput) throws -> Image {
        let image = input.pixels
        let rect = try content(of: image) ?? Rect(x: 0, y: 0, width: image.width, height: image.height)
        Self.note(rect, of: image.size)
        return rect.width == image.width && rect.height == image.height ? image : try image.cropped(to: rect)
    }

    /// Records the box kept, out of a picture of `size`.
    private static func note(_ rect: Rect, of size: Size) {
        StageNote.record(StageNote(name: "box", text: "\(rect.width)x\(rect.height)+\(rect.x)+\(rect.y) of \(size)", value: .object([
            ("x", .number(Double(rect.x))), ("y", .number(Double(rect.y))),
            ("width", .number(Double(rect.width))), ("height", .number(Double(rect.height))),
        ])))
    }

    public func newSurvey() -> ContentBoxScanner {
        ContentBoxScanner(background: background, threshold: threshold, smoothing: !lineArt)
    }

    /// Once surveyed, trim is the crop of the box it found: a resample stage.
    public var surveyedClass: StageClass { .resample }

    public func surveyed(by survey: ContentBoxScanner) throws -> any Transform {
        guard survey.isFinished else { throw StageError("was shown only part of the picture (a bug in the streamed run)") }
        let size = survey.pictureSize
        let rect = survey.box ?? Rect(x: 0, y: 0, width: size.width, height: size.height)
        Self.note(rect, of: size)
        return CropStage(rect)
    }

    /// Before its survey, a streamed run plans trim as the largest crop it can be: every row
    /// from its own.
    public func inputRows(forOutput rows: Range<Int>, of input: DecodeReduction) -> Range<Int> { rows }
}
