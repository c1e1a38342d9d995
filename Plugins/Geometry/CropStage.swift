import ImagePipeCore

/// `crop X,Y,WxH` — cut a rectangle out, in pixels or percentages of the picture's sides
/// (`10%,10%,50%x50%`); the pixels are shared, not copied. A rectangle that does not lie wholly
/// inside the picture is refused when the pipeline is planned, before any decoding.
///
/// `crop WxH position=…` — a rectangle of that size placed at an anchor, or where attention or
/// entropy finds the content, and cut to the picture where it is larger: ImageMagick's
/// `-gravity … -crop WxH`, libvips' `smartcrop`, imgproxy's `c:`.
public struct CropStage: RearrangingStage, DeclaredStage {
    public static let declaration = StageDeclaration(
        "crop", summary: "Cut out a rectangle X,Y,WxH, or WxH at a position, in pixels or percentages (lossless)",
        example: "crop 10,20,300x200", start: CropStage(Rect(x: 0, y: 0, width: 1, height: 1)), [
            Param(\.rect, "rect", .cropRect(max: 100_000), positional: true,
                  help: "X,Y,WxH: the top-left corner and the size. Each of the four is whole pixels or a percentage of the picture's side on its axis (10%,10%,50%x50%; percentages, not unit fractions, so 0,0,1x1 can only mean one pixel). Percentages place both edges at the nearest pixel. The rectangle must lie inside the picture. WxH alone: a rectangle of that size placed by position, cut to the picture where it is larger. ImageMagick's WxH+X+Y (400x300+10+20) is read as X,Y,WxH."),
            Param(\.position, "position", .position, default: .anchor(.center),
                  help: "Where a WxH rectangle (no X,Y) is cut: an anchor (center, top, bottom-right, 0.3,0, or its corner Xpx,Ypx), attention (edges, skin and saturated color) or entropy (the busiest part), the last two chosen after decoding (on an animation's first frame)."),
        ])

    public var rect: CropRect
    public var position: CropPosition

    public init(_ rect: CropRect, position: CropPosition = .anchor(.center)) {
        self.rect = rect
        self.position = position
    }

    public init(_ rect: Rect) { self.init(CropRect(rect)) }

    public func check() throws(ArgumentError) {
        if rect.isPlaced, position != .anchor(.center) {
            throw ArgumentError.parameter("position", "position=\(position) places a rectangle given as WxH; \(rect) names its corner already")
        }
    }

    /// The rectangle in pixels on a picture of `input` size; throws when a rectangle with a
    /// corner is not inside. A smart position's rectangle is centred here: the analysis places it
    /// after decoding.
    public func pixels(in input: Size) throws -> Rect {
        guard rect.isPlaced else {
            let asked = rect.size(in: input)
            let size = Size(min(asked.width, input.width), min(asked.height, input.height))
            let room = (x: Double(input.width - size.width), y: Double(input.height - size.height))
            let corner: (x: Double, y: Double) = switch position {
            case let .anchor(.unit(x, y)): (x * room.x, y * room.y)
            case let .anchor(.pixels(x, y)): (x, y)
            case .attention, .entropy: (room.x / 2, room.y / 2)
            }
            // Rounded down, as ImageMagick's gravity: an odd pixel of room goes right or below.
            return Rect(x: Int(min(max(corner.x, 0), room.x).rounded(.down)), y: Int(min(max(corner.y, 0), room.y).rounded(.down)),
                        width: size.width, height: size.height)
        }
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
        if let strategy = position.strategy, !rect.isPlaced {
            return "cut \(pixels.width)x\(pixels.height) where \(strategy.rawValue) chooses after decoding (pixels shared, no copy)"
        }
        return "cut \(pixels.width)x\(pixels.height) at \(pixels.x),\(pixels.y) (pixels shared, no copy)"
    }

    /// The analysis that places the rectangle, when one does.
    private var smartStrategy: SmartCrop.Strategy? { rect.isPlaced ? nil : position.strategy }

    /// Output rows are the input rows `rect.y` further down, cut to the rectangle's columns: the
    /// streamed run keeps only the window, never the picture. A rectangle placed by attention or
    /// entropy needs the whole picture first.
    public var stageClass: StageClass { smartStrategy == nil ? .resample : .whole }

    public func inputRows(forOutput rows: Range<Int>, of input: DecodeReduction) throws -> Range<Int> {
        // A smart window is chosen from the whole input, as a whole stage's.
        guard smartStrategy == nil else { return try defaultInputRows(forOutput: rows, of: input) }
        let y = try pixels(in: input.decodedSize).y
        return (rows.lowerBound + y)..<(rows.upperBound + y)
    }

    public func makeRows(_ rows: Range<Int>, from input: StageInput) throws -> Image {
        var pixels = try pixels(in: input.picture.decodedSize)
        if let strategy = smartStrategy {
            // A whole stage: the rectangle is placed from every pixel.
            let window = try SmartCrop.window(width: Double(pixels.width), height: Double(pixels.height), in: input.wholeSource, strategy: strategy)
            pixels = Rect(x: Int(window.x), y: Int(window.y), width: pixels.width, height: pixels.height)
        }
        return try input.pixels.cropped(to: Rect(x: pixels.x, y: rows.lowerBound + pixels.y - input.top, width: pixels.width, height: rows.count))
    }

    public func rearrangement(for input: Size) throws -> PixelRearrangement? {
        smartStrategy == nil ? .crop(try pixels(in: input)) : nil
    }
}

extension CropStage: RegionOnLoadStage {
    /// The crop's own columns; every column for a smart window, chosen from the whole input.
    public func inputColumns(of input: DecodeReduction) throws -> Range<Int> {
        guard smartStrategy == nil else { return 0..<input.decodedSize.width }
        let rect = try pixels(in: input.decodedSize)
        return rect.x..<(rect.x + rect.width)
    }
}
