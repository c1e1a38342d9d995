import ImagePipeCore

/// `circle-crop [size=auto] [viewport=WxH] [gap=0] [zoom=auto] [offset=x,y] [position=center]`
/// — the avatar that seed 000's "OK" button produces: the circle cut out of the picture,
/// transparent outside. Without an editor state, the largest circle, placed at `position`
/// (an anchor, or a smart crop's `attention`/`entropy` after decoding).
public struct CircleCropStage: ShrinkOnLoadStage, DeclaredStage {
    public static let declaration = StageDeclaration(
        "circle-crop",
        summary: "Cut out a circular avatar, transparent outside: the largest centered circle, or the one an editor state shows (seed 000)",
        example: "circle-crop size=256", start: try CircleCropStage(), [
            Param(\.size, "size", .integer(1...100_000), auto: true,
                  help: "The output's side in pixels; auto is the circle's diameter in image pixels."),
            Param(\.viewport, "viewport", .size(max: 100_000),
                  help: "The editor's viewport W×H; with it, zoom and offset place the circle as the editor does. Without it, the largest centered circle."),
            EditorParameters.gap(\.gap),
            EditorParameters.zoom(\.zoom),
            EditorParameters.offset(\.offset),
            Param(\.position, "position", .position, default: .anchor(.center),
                  help: "Without a viewport, where the largest circle sits: an anchor (center; top-left puts it in that corner; Xpx,Ypx is its square's top-left corner), or attention (edges, skin and saturated color) or entropy (the busiest part), chosen after decoding (on an animation's first frame)."),
            ScalingParameters.kernel(\.kernel),
            ScalingParameters.linearLight(\.linearLight),
        ])

    public var size: Int?
    public var viewport: Size?
    public var gap: Double
    public var zoom: Double?
    public var offset: Point?
    public var position: CropPosition = .anchor(.center)
    public var kernel: Kernel?
    public var linearLight = false

    public init(size: Int? = nil, viewport: Size? = nil, gap: Double = 0, zoom: Double? = nil, offset: Point? = nil) throws {
        self.size = size
        self.viewport = viewport
        self.gap = gap
        self.zoom = zoom
        self.offset = offset
        try check()
    }

    public func check() throws(ArgumentError) {
        if viewport == nil {
            if zoom != nil { throw ArgumentError.parameter("zoom", "zoom is part of the editor's state; give viewport=WxH too") }
            if offset != nil { throw ArgumentError.parameter("offset", "offset is part of the editor's state; give viewport=WxH too") }
        }
        if let viewport { try EditorParameters.check(gap: gap, viewport: viewport) }
        if viewport != nil, position != .anchor(.center) {
            throw ArgumentError.parameter("position", "position places the largest circle; with viewport= the editor's zoom and offset place it")
        }
    }

    /// The circle in image pixels: from the editor state when there is a viewport, else the
    /// largest circle (less the gap) at `position` (centred for a smart position, which the
    /// analysis moves after decoding).
    public func circle(in input: Size) throws -> (center: Point, radius: Double) {
        guard let viewport else {
            let diameter = Double(input.shorterSide) - gap
            guard diameter > 0 else { throw StageError("gap \(NumberFormat.text(gap)) leaves no circle on a \(input) picture") }
            let room = Point(Double(input.width) - diameter, Double(input.height) - diameter)
            let corner: Point = switch position {
            case let .anchor(.unit(x, y)): Point(x * room.x, y * room.y)
            case let .anchor(.pixels(x, y)): Point(x, y)
            case .attention, .entropy: Point(room.x / 2, room.y / 2)
            }
            return (Point(min(max(corner.x, 0), room.x) + diameter / 2, min(max(corner.y, 0), room.y) + diameter / 2), diameter / 2)
        }
        let model = CropViewport(viewport: viewport, gap: gap, imageSize: input)
        return model.circleInImage(EditorParameters.state(of: model, zoomFactor: zoom, offset: offset))
    }

    public func outputSize(for input: Size) throws -> Size {
        let side = try size ?? Rounding.side(2 * circle(in: input).radius)
        return Size(side, side)
    }

    public func explanation(for input: Size) throws -> String? {
        let (center, radius) = try circle(in: input)
        let side = try outputSize(for: input).width
        if let strategy = position.strategy {
            return "circle radius \(NumberFormat.short(radius)) in image pixels, its center chosen after decoding (\(strategy.rawValue)), scale ×\(NumberFormat.short(Double(side) / (2 * radius)))"
        }
        return "circle center \(NumberFormat.short(center.x)),\(NumberFormat.short(center.y)) radius \(NumberFormat.short(radius)) in image pixels, scale ×\(NumberFormat.short(Double(side) / (2 * radius)))"
    }

    /// `resample`: each strip of the avatar is scaled from the window of input rows it needs and
    /// cut out where it lies, unless the circle is chosen from the whole picture (attention,
    /// entropy).
    public var stageClass: StageClass { position.strategy == nil ? .resample : .whole }

    /// The avatar is transparent outside the circle.
    public func outputHasAlpha(inputHasAlpha: Bool) -> Bool { true }

    /// The circle's square in full-picture pixels, and the output.
    private func square(in input: Size) throws -> (region: Region, output: Size) {
        let (center, radius) = try circle(in: input)
        return (Region(x: center.x - radius, y: center.y - radius, width: 2 * radius, height: 2 * radius), try outputSize(for: input))
    }

    /// The square's resampling from the decode's rows, through the decode's mapping.
    private func windowed(_ reduction: DecodeReduction) throws -> WindowedResampling {
        let (region, output) = try square(in: reduction.fullSize)
        return try WindowedResampling(sourceSize: reduction.decodedSize, region: reduction.map(region), to: output, kernel: kernel,
                                      linearLight: linearLight)
    }

    public func inputRows(forOutput rows: Range<Int>, of input: DecodeReduction) throws -> Range<Int> {
        // A smart window is chosen from the whole input, as a whole stage's.
        guard position.strategy == nil else { return try defaultInputRows(forOutput: rows, of: input) }
        return try windowed(input).sourceRows(forOutput: rows)
    }

    public func makeRows(_ rows: Range<Int>, from input: StageInput) throws -> Image {
        let output = try outputSize(for: input.picture.fullSize), half = Double(output.width) / 2
        if let strategy = position.strategy {
            // A whole stage: the circle is placed from every pixel; only its square is scaled.
            let source = input.wholeSource
            let (center, radius) = try circle(in: source.fullSize)
            let square = source.map(Region(x: center.x - radius, y: center.y - radius, width: 2 * radius, height: 2 * radius))
            let window = try SmartCrop.window(width: square.width, height: square.height, in: source, strategy: strategy)
            let scaled = try source.image.resampled(from: window, to: output, kernel: kernel, linearLight: linearLight)
            return try CirclePainter.cutOut(scaled, center: Point(half, half), radius: half)
        }
        let band = try windowed(input.picture).rows(rows, fromWindow: input.pixels, top: input.top)
        return try CirclePainter.cutOut(band, top: rows.lowerBound, center: Point(half, half), radius: half)
    }

    /// The circle is scaled to the output, so the picture is needed at that scale at most.
    public func reducedInput(for input: Size) throws -> Size? {
        let scale = Double(try outputSize(for: input).width) / (2 * (try circle(in: input).radius))
        return scale < 1 ? input.scaledUp(by: scale) : nil
    }
}
