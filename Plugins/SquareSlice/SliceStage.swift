import ImagePipeCore

/// `slice [WxH=300x300] [zoom=1] [offset=center]` — seed 001's Project NP slice: the picture
/// covers a W×H window, zoomed between cover and native size, cut at a content offset, or where
/// a smart crop (`offset=attention|entropy`) finds the content after decoding.
///
/// The seed's lesson is built in: only the window is resampled (crop and scale in one pass), so
/// memory beyond the decode does not grow with the picture. With an anchored window the stage is
/// a resample stage, and a streamed run makes its strips from the rows of the window alone; a
/// smart offset chooses the window from the whole picture.
public struct SliceStage: ShrinkOnLoadStage, DeclaredStage {
    public static let declaration = StageDeclaration(
        "slice", summary: "Cut a WxH slice the picture always covers, zoomed and placed like a scroll view (seed 001)",
        example: "slice 300x300 zoom=1.5 offset=0.5,0", start: SliceStage(), [
            Param(\.size, "size", .size(max: 100_000), default: Size(300, 300), positional: true,
                  help: "The slice W×H; the output is exactly this size."),
            Param(\.zoom, "zoom", .number(1...1000), default: 1,
                  help: "Zoom relative to the covering zoom zmin = max(W/w, H/h), clamped to zmax = max(1, zmin): no enlargement past native pixels unless the picture is too small to cover."),
            Param(\.offset, "offset", .position, default: .anchor(.center),
                  help: "The window: a unit anchor (0.5,0.5 centered, 0,0 top-left) or a scroll view's content offset in zoomed pixels (Xpx,Ypx), clamped to the picture; or attention (edges, skin and saturated color) or entropy (the busiest part), chosen after decoding (on an animation's first frame)."),
            ScalingParameters.kernel(\.kernel),
            ScalingParameters.linearLight(\.linearLight),
        ])

    public var size: Size
    public var zoom: Double
    public var offset: CropPosition
    public var kernel: Kernel?
    public var linearLight = false

    public init(size: Size = Size(300, 300), zoom: Double = 1, offset: CropPosition = .anchor(.center)) {
        self.size = size
        self.zoom = zoom
        self.offset = offset
    }

    public init(size: Size = Size(300, 300), zoom: Double = 1, offset: Anchor) {
        self.init(size: size, zoom: zoom, offset: .anchor(offset))
    }

    /// The window in image pixels that becomes the slice; for a smart offset its size, centred
    /// (the analysis places it after decoding).
    public func window(for input: Size) -> Region {
        let viewport = SliceViewport(slice: size, imageSize: input)
        let zoom = viewport.zoom(factor: zoom)
        guard case let .anchor(anchor) = offset else { return viewport.window(zoom: zoom, offset: viewport.offset(.center, zoom: zoom)) }
        return viewport.window(zoom: zoom, offset: viewport.offset(anchor, zoom: zoom))
    }

    public func outputSize(for input: Size) -> Size { size }

    public func explanation(for input: Size) -> String? {
        let model = SliceViewport(slice: size, imageSize: input)
        let window = window(for: input)
        if let strategy = offset.strategy {
            return "window \(NumberFormat.short(window.width))x\(NumberFormat.short(window.height)) chosen after decoding (\(strategy.rawValue)) at zoom \(NumberFormat.short(model.zoom(factor: zoom))), cut and scaled in one pass"
        }
        return "window \(NumberFormat.short(window.width))x\(NumberFormat.short(window.height))+\(NumberFormat.short(window.x))+\(NumberFormat.short(window.y)) at zoom \(NumberFormat.short(model.zoom(factor: zoom))) (zmin \(NumberFormat.short(model.minimumZoom)), zmax \(NumberFormat.short(model.maximumZoom))), cut and scaled in one pass"
    }

    /// The window is scaled by the zoom, so the picture is needed at zoom × its size at most.
    public func reducedInput(for input: Size) -> Size? {
        let model = SliceViewport(slice: size, imageSize: input)
        let zoom = model.zoom(factor: zoom)
        return zoom < 1 ? input.scaledUp(by: zoom) : nil
    }

    public var stageClass: StageClass { offset.strategy == nil ? .resample : .whole }

    /// The window's scaling from the decode's rows (the full picture's, or a reduced decode's).
    private func windowed(_ reduction: DecodeReduction) throws -> WindowedResampling {
        try WindowedResampling(sourceSize: reduction.decodedSize, region: reduction.map(window(for: reduction.fullSize)), to: size,
                               kernel: kernel, linearLight: linearLight)
    }

    public func inputRows(forOutput rows: Range<Int>, of input: DecodeReduction) throws -> Range<Int> {
        // A smart window is chosen from the whole input, as a whole stage's.
        guard offset.strategy == nil else { return try defaultInputRows(forOutput: rows, of: input) }
        return try windowed(input).sourceRows(forOutput: rows)
    }

    public func makeRows(_ rows: Range<Int>, from input: StageInput) throws -> Image {
        guard let strategy = offset.strategy else { return try windowed(input.picture).rows(rows, fromWindow: input.pixels, top: input.top) }
        // A whole stage: the window is placed from every pixel.
        let source = input.wholeSource
        let mapped = source.map(window(for: source.fullSize))
        let window = try SmartCrop.window(width: mapped.width, height: mapped.height, in: source, strategy: strategy)
        return try source.image.resampled(from: window, to: size, kernel: kernel, linearLight: linearLight)
    }
}
