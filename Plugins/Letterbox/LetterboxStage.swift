import ImagePipeCore

/// `letterbox WxH [color=black] [offset=center]` — seed 004's centring: a W×H canvas with the
/// picture centred on an axis where it is smaller, and the window at `offset` where it is larger.
public struct LetterboxStage: Transform, DeclaredStage {
    public static let declaration = StageDeclaration(
        "letterbox", summary: "Place on a WxH canvas: centered where smaller, cut at offset where larger (seed 004)",
        example: "letterbox 1280x720 color=#202020", start: LetterboxStage(size: Size(1, 1)), [
            Param(\.size, "size", .size(max: 100_000), positional: true,
                  help: "The canvas W×H; the output is exactly this size."),
            Param(\.color, "color", .color, default: .black,
                  help: "The bars' color; one with alpha (transparent) gives an RGBA canvas. A picture with alpha keeps it."),
            Param(\.offset, "offset", .anchor, default: .center,
                  help: "On an axis where the picture is larger than the canvas, the visible window: a unit anchor (0 left/top … 1 right/bottom) or the scroll offset in pixels (Xpx,Ypx)."),
        ])

    public var size: Size
    public var color: Color
    public var offset: Anchor

    public init(size: Size, color: Color = .black, offset: Anchor = .center) {
        self.size = size
        self.color = color
        self.offset = offset
    }

    /// Where the picture's top-left corner lands on the canvas, per axis: `(W − w)/2` floored
    /// where it is smaller (the odd pixel goes to the right or bottom bar), minus the scroll
    /// offset where it is larger.
    public func placement(for input: Size) -> (x: Int, y: Int) {
        func axis(_ picture: Int, _ canvas: Int, unit: Double?, pixels: Double?) -> Int {
            if picture <= canvas { return (canvas - picture) / 2 }
            let overflow = Double(picture - canvas)
            let scroll = unit.map { $0 * overflow } ?? pixels ?? overflow / 2
            return -Rounding.pixels(min(max(scroll, 0), overflow))
        }
        switch offset {
        case let .unit(x, y):
            return (axis(input.width, size.width, unit: x, pixels: nil), axis(input.height, size.height, unit: y, pixels: nil))
        case let .pixels(x, y):
            return (axis(input.width, size.width, unit: nil, pixels: x), axis(input.height, size.height, unit: nil, pixels: y))
        }
    }

    public func outputSize(for input: Size) -> Size { size }

    public func explanation(for input: Size) -> String? {
        let (x, y) = placement(for: input)
        return "picture at \(x),\(y) on a \(size) canvas of \(color)"
    }

    /// Each output row is an input row (or the part of it the window shows) with the color
    /// beside it, or color alone: a resample stage, whose strips come from the input rows they
    /// hold (RGBA when the bars are translucent).
    public var stageClass: StageClass { .resample }

    public func outputHasAlpha(inputHasAlpha: Bool) -> Bool { inputHasAlpha || !color.isOpaque }

    /// The input rows under output `rows`; for rows wholly in a bar, the nearest input row (a
    /// window holds at least one, and never moves back).
    public func inputRows(forOutput rows: Range<Int>, of input: DecodeReduction) throws -> Range<Int> {
        let inputSize = input.decodedSize
        let top = placement(for: inputSize).y
        let first = min(max(0, rows.lowerBound - top), inputSize.height - 1)
        return first..<max(first + 1, min(inputSize.height, rows.upperBound - top))
    }

    public func makeRows(_ outputRows: Range<Int>, from input: StageInput) throws -> Image {
        let (window, windowTop, inputSize) = (input.pixels, input.top, input.picture.decodedSize)
        let (left, top) = placement(for: inputSize)
        // The input columns the canvas shows, and where they land.
        let from = max(0, -left), to = min(inputSize.width, size.width - left)
        // Translucent bars make RGB rows RGBA, their own pixels opaque.
        let hasAlpha = outputHasAlpha(inputHasAlpha: window.hasAlpha)
        let channels = hasAlpha ? 4 : 3, fill = [color.red, color.green, color.blue, color.alpha]
        return try Image.make(size: Size(size.width, outputRows.count), hasAlpha: hasAlpha) { writer in
            for y in outputRows {
                let target = writer.row(y - outputRows.lowerBound), source = y - top
                for x in 0..<size.width * channels { target[x] = fill[x % channels] }
                guard (0..<inputSize.height).contains(source), to > from else { continue }
                PixelCopy.copy(to - from, from: window.row(source - windowTop).baseAddress! + from * window.channelCount, channels: window.channelCount,
                               to: target.baseAddress! + (from + left) * channels, channels: channels)
            }
        }
    }
}
