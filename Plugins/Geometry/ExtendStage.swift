import ImagePipeCore

/// `extend [top=0] [right=0] [bottom=0] [left=0] [color=black] [mode=color]` — add pixels at
/// the edges (what other tools call padding), as libvips `embed` / sharp `extend`: a flat
/// colour, or the edge pixels copied, mirrored or repeated.
public struct ExtendStage: Transform, DeclaredStage {
    public static let declaration = StageDeclaration(
        "extend", summary: "Add pixels at the edges (pad): a color, or the edges copied, mirrored or repeated",
        example: "extend top=10 bottom=10 color=white", start: ExtendStage(), [
            Param(\.top, "top", .integer(0...100_000), default: 0, help: "Rows added above."),
            Param(\.right, "right", .integer(0...100_000), default: 0, help: "Columns added on the right."),
            Param(\.bottom, "bottom", .integer(0...100_000), default: 0, help: "Rows added below."),
            Param(\.left, "left", .integer(0...100_000), default: 0, help: "Columns added on the left."),
            Param(\.color, "color", .color, default: .black,
                  help: "The new pixels' color with mode=color (black, as sharp and libvips); a color that is not opaque gives RGBA output."),
            Param(\.mode, "mode", .choice(EdgeMode.self), default: .color,
                  help: "color fills with color; copy stretches the edge pixels; mirror reflects the picture at each edge (the edge pixel repeated, as libvips); repeat tiles it. This is the pad of other tools."),
        ])

    public var top: Int
    public var right: Int
    public var bottom: Int
    public var left: Int
    public var color: Color
    public var mode: EdgeMode

    public init(top: Int = 0, right: Int = 0, bottom: Int = 0, left: Int = 0, color: Color = .black, mode: EdgeMode = .color) {
        self.top = top
        self.right = right
        self.bottom = bottom
        self.left = left
        self.color = color
        self.mode = mode
    }

    public func outputSize(for input: Size) -> Size { Size(input.width + left + right, input.height + top + bottom) }

    public func explanation(for input: Size) -> String? {
        "add \(top) above, \(right) right, \(bottom) below, \(left) left: " + (mode == .color ? "\(color)" : "\(mode.rawValue) the edges")
    }

    /// With a color, each output row is an input row with color beside it, or color alone: a
    /// resample stage, whose strips come from the input rows they hold (RGBA when the color is
    /// translucent). The other modes read rows near the edges again (mirror, repeat).
    public var stageClass: StageClass { mode == .color ? .resample : .whole }

    /// A translucent color's border gives the picture alpha (when there is a border).
    public func outputHasAlpha(inputHasAlpha: Bool) -> Bool {
        inputHasAlpha || (mode == .color && !color.isOpaque && top + right + bottom + left > 0)
    }

    /// The input rows under output `rows`; for rows wholly in a border, the nearest input row
    /// (a window holds at least one, and never moves back).
    public func inputRows(forOutput rows: Range<Int>, inputSize: Size) throws -> Range<Int> {
        let first = min(max(0, rows.lowerBound - top), inputSize.height - 1)
        return first..<max(first + 1, min(inputSize.height, rows.upperBound - top))
    }

    public func apply(toWindow window: Image, windowTop: Int, inputSize: Size, outputRows: Range<Int>) throws -> Image {
        let width = inputSize.width + left + right
        // A translucent color makes RGB rows RGBA, their own pixels opaque.
        let hasAlpha = outputHasAlpha(inputHasAlpha: window.hasAlpha)
        let channels = hasAlpha ? 4 : 3, fill = [color.red, color.green, color.blue, color.alpha]
        return try Image.make(size: Size(width, outputRows.count), hasAlpha: hasAlpha) { writer in
            for y in outputRows {
                let target = writer.row(y - outputRows.lowerBound), source = y - top
                for x in 0..<width * channels { target[x] = fill[x % channels] }
                guard (0..<inputSize.height).contains(source) else { continue }
                PixelCopy.copy(inputSize.width, from: window.row(source - windowTop).baseAddress!, channels: window.channelCount,
                               to: target.baseAddress! + left * channels, channels: channels)
            }
        }
    }

    public func apply(to image: Image) throws -> Image {
        if top == 0 && right == 0 && bottom == 0 && left == 0 { return image }
        return try image.extended(top: top, right: right, bottom: bottom, left: left, mode: mode, background: color)
    }
}
