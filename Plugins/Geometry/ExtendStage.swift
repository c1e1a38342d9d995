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

    /// Each output row is an input row with new pixels beside it, or new pixels alone: a
    /// resample stage, whose strips come from the input rows they show (RGBA when a color is
    /// translucent). The other modes show input rows again in the borders (mirror, repeat).
    public var stageClass: StageClass { .resample }

    /// A translucent color's border gives the picture alpha (when there is a border).
    public func outputHasAlpha(inputHasAlpha: Bool) -> Bool {
        inputHasAlpha || (mode == .color && !color.isOpaque && top + right + bottom + left > 0)
    }

    /// The input rows that output `rows` show, widened so that a window never moves back: down
    /// to the lowest row any later strip shows (a repeated bottom border shows the picture's top
    /// again, so with it every window starts at the first row). A row wholly of color shows the
    /// nearest input row (a window holds at least one).
    public func inputRows(forOutput rows: Range<Int>, of input: DecodeReduction) throws -> Range<Int> {
        let inputSize = input.decodedSize
        let height = inputSize.height, end = top + height + bottom
        let shown = rows.compactMap { mode.source(of: $0 - top, length: height) }
        // Strips come down the picture, so the lowest row a later strip shows is the next
        // picture row's, or one of the bottom border's, which repeat every 2 × height rows at most.
        let nextPictureRow = rows.upperBound < end ? mode.source(of: max(rows.upperBound, top) - top, length: height) : nil
        let borderStart = max(rows.upperBound, top + height)
        let bottomBorder = (borderStart..<min(end, borderStart + 2 * height)).compactMap { mode.source(of: $0 - top, length: height) }
        let nearest = min(max(0, rows.lowerBound - top), height - 1)
        let low = ([nearest] + shown + [nextPictureRow].compactMap { $0 } + bottomBorder).min()!, high = (shown.max() ?? nearest) + 1
        return low..<max(high, low + 1)
    }

    public func makeRows(_ outputRows: Range<Int>, from input: StageInput) throws -> Image {
        // Nothing added: the rows as they came.
        if top == 0, right == 0, bottom == 0, left == 0, input.rows == outputRows { return input.pixels }
        let (window, windowTop, inputSize) = (input.pixels, input.top, input.picture.decodedSize)
        let width = inputSize.width + left + right
        // A translucent color makes RGB rows RGBA, their own pixels opaque.
        let hasAlpha = outputHasAlpha(inputHasAlpha: window.hasAlpha)
        let channels = hasAlpha ? 4 : 3, fill = [color.red, color.green, color.blue, color.alpha]
        // Which input column (or nil: the color) each output column shows, worked out once.
        let columns = (0..<width).map { mode.source(of: $0 - left, length: inputSize.width) }
        return try Image.make(size: Size(width, outputRows.count), hasAlpha: hasAlpha) { writer in
            for y in outputRows {
                let target = writer.row(y - outputRows.lowerBound)
                guard let source = mode.source(of: y - top, length: inputSize.height) else {
                    for x in 0..<width * channels { target[x] = fill[x % channels] }
                    continue
                }
                let row = window.row(source - windowTop).baseAddress!
                PixelCopy.copy(inputSize.width, from: row, channels: window.channelCount, to: target.baseAddress! + left * channels, channels: channels)
                for x in 0..<width where x < left || x >= left + inputSize.width {
                    guard let column = columns[x] else {
                        for channel in 0..<channels { target[x * channels + channel] = fill[channel] }
                        continue
                    }
                    PixelCopy.copy(1, from: row + column * window.channelCount, channels: window.channelCount,
                                   to: target.baseAddress! + x * channels, channels: channels)
                }
            }
        }
    }
}
