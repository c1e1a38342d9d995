import ImagePipeCore

/// `resize [W]x[H] [fit=auto] [position=center] [upscale=true] [downscale=true] [background=black]`:
/// a width, a height or both (pixels or percentages), fitted as sharp's `fit` says; by default
/// inside, as ImageMagick's `-resize`, `vips thumbnail` and Pillow's `thumbnail` fit, or cover
/// when a position says where to cut.
///
/// Cover crops and scales in one pass (only the window is resampled), and the first `resize`
/// of a pipeline lets a JPEG decode reduced (shrink-on-load), as `fit` and `slice` do.
public struct ResizeStage: ShrinkOnLoadStage, DeclaredStage {
    public static let declaration = StageDeclaration(
        "resize", summary: "Resize to a width and/or height, fitted as sharp does (cover, contain, fill, inside, outside)",
        example: "resize 640x480 fit=contain", start: ResizeStage(ResizeSize(1, 1)), [
            Param(\.size, "size", .resizeSize(max: 100_000), positional: true,
                  help: "WxH, Wx (width only: the height keeps the aspect), xH, N (a square box, NxN, as fit reads it), or percentages of the picture's sides (50%, 50%x25%). ImageMagick's flags are read as parameters: 640x480> is fit=inside upscale=false (shrink only), 640x480< fit=inside downscale=false (enlarge only), 640x480! fit=fill, 640x480^ fit=outside."),
            Param(\.fit, "fit", .choice(ResizeFit.self), auto: true,
                  help: "With both sides given: inside fits inside WxH with no bars (as ImageMagick's -resize, vips thumbnail and Pillow's thumbnail); cover (sharp's default) fills WxH and cuts the overflow at position; contain fits inside and letterboxes onto background; fill stretches to exactly WxH; outside covers with nothing cut. auto (the default) is inside, or cover when a position other than center says where to cut."),
            Param(\.position, "position", .position, default: .anchor(.center),
                  help: "For cover (which a position other than center chooses when fit is not given), where the window is cut: an anchor (center, top, 0.3,0, or the content offset Xpx,Ypx in scaled pixels), attention (edges, skin and saturated color) or entropy (the busiest part), the last two chosen after decoding (on an animation's first frame). For contain, where the picture sits on the canvas (an anchor; Xpx,Ypx is its top-left corner)."),
            Param(\.upscale, "upscale", .boolean, default: true,
                  help: "false never enlarges (sharp's withoutEnlargement): the scale stops at 1; cover then cuts at most WxH, contain still letterboxes to WxH."),
            Param(\.downscale, "downscale", .boolean, default: true,
                  help: "false never reduces (sharp's withoutReduction): the scale stops at 1. `640x480<` is ImageMagick's enlarge-only resize, fit=inside downscale=false; `640x480>` its shrink-only one, fit=inside upscale=false."),
            Param(\.background, "background", .color, default: .black,
                  help: "The bars of fit=contain (black, as sharp); a color that is not opaque gives RGBA."),
            Param(\.region, "region", .cropRect(max: 100_000),
                  help: "X,Y,WxH: resize only this part of the picture (pixels, or percentages of its sides), cut and scaled in one pass, as if it were the whole picture (WxH and percentages of the size are of the region); a JPEG still decodes reduced for it (shrink-on-load). The part outside the picture is left out; a region wholly outside is an error."),
            ScalingParameters.kernel(\.kernel),
            ScalingParameters.linearLight(\.linearLight),
        ])

    /// What a resize of one picture size does, before any pixel is seen.
    public struct Layout: Hashable, Sendable {
        /// The part of the picture that is scaled, in its pixels. For a smart `position` only its
        /// size is final (it is centred here); the analysis places it after decoding.
        public var window: Region
        /// The size the window is scaled to.
        public var scaled: Size
        /// The output: `scaled`, or the canvas of `contain`.
        public var output: Size
        /// Where the scaled picture's top-left lies on the canvas (contain), else 0,0.
        public var origin: Point
    }

    public var size: ResizeSize
    /// The fit asked for; nil for auto (`mode`).
    public var fit: ResizeFit?
    public var position: CropPosition
    public var upscale: Bool
    public var downscale = true
    public var background: Color
    public var kernel: Kernel?
    public var linearLight = false
    /// The part of the picture resized, as if it were the whole; nil for the whole picture.
    public var region: CropRect?

    public init(_ size: ResizeSize, fit: ResizeFit? = nil, position: CropPosition = .anchor(.center), upscale: Bool = true,
                background: Color = .black) {
        self.size = size
        self.fit = fit
        self.position = position
        self.upscale = upscale
        self.background = background
    }

    /// The fit the stage does: `fit`; when not given, inside, or cover when a position other
    /// than center says where to cut (inside cuts nothing).
    public var mode: ResizeFit { fit ?? (position != .anchor(.center) ? .cover : .inside) }

    public func check() throws(ArgumentError) {
        if position.strategy != nil, !(mode == .cover && size.width != nil && size.height != nil) {
            throw ArgumentError.parameter("position", "position=\(position) chooses a window to cut, so it needs fit=cover and both a width and a height")
        }
        if position.strategy != nil, region != nil {
            throw ArgumentError.parameter("region", "region= and position=\(position) both say where to cut: give one")
        }
        if let region, !region.isPlaced {
            throw ArgumentError.parameter("region", "region=\(region) needs its corner: X,Y,WxH")
        }
    }

    /// `region` in the pixels of a picture of `input` size, cut to the picture (at least one
    /// pixel, so that the layout is defined: `outputSize` refuses a region wholly outside);
    /// the whole picture without one.
    public func regionPixels(in input: Size) -> Rect {
        guard let region else { return Rect(x: 0, y: 0, width: input.width, height: input.height) }
        let asked = region.rect(in: input)
        let left = min(max(asked.x, 0), input.width - 1), top = min(max(asked.y, 0), input.height - 1)
        let right = min(max(asked.x + asked.width, left + 1), input.width), bottom = min(max(asked.y + asked.height, top + 1), input.height)
        return Rect(x: left, y: top, width: right - left, height: bottom - top)
    }

    /// The scale held to 1 from above (`upscale=false`) or below (`downscale=false`).
    private func limited(_ scale: Double) -> Double {
        let shrunk = upscale ? scale : min(scale, 1)
        return downscale ? shrunk : max(shrunk, 1)
    }

    /// The layout of the region (or the whole picture), in the picture's pixels.
    public func layout(for input: Size) -> Layout {
        let part = regionPixels(in: input)
        var layout = layout(ofWhole: part.size)
        layout.window.x += Double(part.x)
        layout.window.y += Double(part.y)
        return layout
    }

    /// The layout of a picture of `input` size resized whole.
    private func layout(ofWhole input: Size) -> Layout {
        let w = Double(input.width), h = Double(input.height)
        let whole = Region(x: 0, y: 0, width: w, height: h)
        let targetWidth = size.width?.pixels(of: input.width), targetHeight = size.height?.pixels(of: input.height)
        func uniform(_ scale: Double) -> Size { Size(Rounding.side(w * scale), Rounding.side(h * scale)) }
        guard let targetWidth, let targetHeight else {
            // One side given: the other keeps the aspect, whatever the fit.
            let scale = limited(targetWidth.map { $0 / w } ?? targetHeight! / h)
            let scaled = uniform(scale)
            return Layout(window: whole, scaled: scaled, output: scaled, origin: .zero)
        }
        let target = Size(Rounding.side(targetWidth), Rounding.side(targetHeight))
        let (byWidth, byHeight) = (targetWidth / w, targetHeight / h)
        switch mode {
        case .fill:
            let scaled = Size(limited(byWidth) == byWidth ? target.width : input.width, limited(byHeight) == byHeight ? target.height : input.height)
            return Layout(window: whole, scaled: scaled, output: scaled, origin: .zero)
        case .inside, .outside:
            let scaled = uniform(limited(mode == .inside ? min(byWidth, byHeight) : max(byWidth, byHeight)))
            return Layout(window: whole, scaled: scaled, output: scaled, origin: .zero)
        case .contain:
            let scaled = uniform(limited(min(byWidth, byHeight)))
            let output = Size(max(target.width, scaled.width), max(target.height, scaled.height))
            let room = Point(Double(output.width - scaled.width), Double(output.height - scaled.height))
            let origin: Point = switch position {
            case let .anchor(.unit(x, y)):
                // Rounded down, as letterbox and sharp's embed centre: an odd pixel goes right or below.
                Point(min(max((x * room.x).rounded(.down), 0), room.x), min(max((y * room.y).rounded(.down), 0), room.y))
            case let .anchor(.pixels(x, y)):
                Point(min(max(x.rounded(.down), 0), room.x), min(max(y.rounded(.down), 0), room.y))
            case .attention, .entropy:
                Point((room.x / 2).rounded(.down), (room.y / 2).rounded(.down))
            }
            return Layout(window: whole, scaled: scaled, output: output, origin: origin)
        case .cover:
            let scale = limited(max(byWidth, byHeight))
            let full = uniform(scale)
            let output = Size(min(target.width, full.width), min(target.height, full.height))
            // The window that becomes the output; exactly the output's pixels at scale 1.
            let window = (width: min(w, Double(output.width) / scale), height: min(h, Double(output.height) / scale))
            let room = (x: w - window.width, y: h - window.height)
            var corner: Point = switch position {
            case let .anchor(.unit(x, y)): Point(x * room.x, y * room.y)
            case let .anchor(.pixels(x, y)): Point(x / scale, y / scale)
            case .attention, .entropy: Point(room.x / 2, room.y / 2)
            }
            corner = Point(min(max(corner.x, 0), room.x), min(max(corner.y, 0), room.y))
            if scale == 1 { corner = Point(corner.x.rounded(.down), corner.y.rounded(.down)) } // a plain crop, pixels shared
            return Layout(window: Region(x: corner.x, y: corner.y, width: window.width, height: window.height),
                          scaled: output, output: output, origin: .zero)
        }
    }

    public func outputSize(for input: Size) throws -> Size {
        if let region {
            let asked = region.rect(in: input)
            guard asked.x < input.width, asked.y < input.height, asked.width > 0, asked.height > 0 else {
                throw StageError("region=\(region) lies outside the \(input) picture")
            }
        }
        return layout(for: input).output
    }

    public func explanation(for input: Size) -> String? {
        let part = regionPixels(in: input)
        let of = region == nil ? "" : " of the region \(part.width)x\(part.height) at \(part.x),\(part.y)"
        return resizing(for: input).map { $0 + of }
    }

    private func resizing(for input: Size) -> String? {
        let layout = layout(for: input)
        let scaleX = Double(layout.scaled.width) / layout.window.width, scaleY = Double(layout.scaled.height) / layout.window.height
        let scale = abs(scaleX - scaleY) < 1e-3 ? "scale ×\(NumberFormat.short(scaleX))"
            : "scale ×\(NumberFormat.short(scaleX)) across, ×\(NumberFormat.short(scaleY)) down"
        let window = layout.window
        let windowText = "\(NumberFormat.short(window.width))x\(NumberFormat.short(window.height))"
        switch mode {
        case .cover where size.width != nil && size.height != nil:
            if let strategy = position.strategy {
                return "\(scale); cover: a \(windowText) window chosen after decoding (\(strategy.rawValue)), cut and scaled in one pass"
            }
            return "\(scale); cover: window \(windowText) at \(NumberFormat.short(window.x)),\(NumberFormat.short(window.y)), cut and scaled in one pass"
        case .contain where layout.output != layout.scaled:
            return "\(scale) to \(layout.scaled), placed at \(NumberFormat.short(layout.origin.x)),\(NumberFormat.short(layout.origin.y)) on a \(layout.output) \(background) canvas"
        default:
            return "\(scale) (\(size.width != nil && size.height != nil ? mode.rawValue : "aspect kept"))"
        }
    }

    /// The window is scaled to the output, so the picture is needed at that scale at most.
    public func reducedInput(for input: Size) -> Size? {
        let layout = layout(for: input)
        let scaleX = Double(layout.scaled.width) / layout.window.width, scaleY = Double(layout.scaled.height) / layout.window.height
        guard scaleX < 1, scaleY < 1 else { return nil }
        return Size(max(1, Int((Double(input.width) * scaleX).rounded(.up))), max(1, Int((Double(input.height) * scaleY).rounded(.up))))
    }

    /// A resize that cuts nothing and adds no canvas (one side given, fill, inside, outside, or a
    /// cover of the picture's own aspect) is the whole picture resampled: a JPEG's decoder may
    /// do it in its planes.
    public func wholeResampling(for input: Size) -> WholeResampling? {
        let layout = layout(for: input)
        guard !linearLight, position.strategy == nil, layout.output == layout.scaled,
              layout.window == Region(x: 0, y: 0, width: Double(input.width), height: Double(input.height)),
              layout.scaled.width < input.width, layout.scaled.height < input.height else { return nil }
        return WholeResampling(size: layout.scaled, kernel: kernel)
    }

    /// `resample` (the streamed run makes its rows from windows of input rows), unless the
    /// window is chosen from the whole picture (attention, entropy).
    public var stageClass: StageClass { position.strategy == nil ? .resample : .whole }

    /// Whether the picture is placed on a translucent canvas: RGBA, bars or not, as `letterbox`.
    private var translucentCanvas: Bool { mode == .contain && !background.isOpaque }

    public func outputHasAlpha(inputHasAlpha: Bool) -> Bool { inputHasAlpha || translucentCanvas }

    /// The rows of the scaled picture among output `rows` (contain places it on a canvas).
    private func scaledRows(_ layout: Layout, _ rows: Range<Int>) -> Range<Int> {
        let top = Int(layout.origin.y)
        let low = min(max(rows.lowerBound - top, 0), layout.scaled.height)
        return low..<max(low, min(rows.upperBound - top, layout.scaled.height))
    }

    /// The window's resampling from the decode's rows, through the decode's mapping.
    private func windowed(_ layout: Layout, _ reduction: DecodeReduction) throws -> WindowedResampling {
        try WindowedResampling(sourceSize: reduction.decodedSize, region: reduction.map(layout.window), to: layout.scaled, kernel: kernel,
                               linearLight: linearLight)
    }

    public func inputRows(forOutput rows: Range<Int>, of reduction: DecodeReduction) throws -> Range<Int> {
        // A smart window is chosen from the whole input, as a whole stage's.
        guard position.strategy == nil else { return try defaultInputRows(forOutput: rows, of: reduction) }
        let layout = layout(for: reduction.fullSize)
        let scaled = scaledRows(layout, rows)
        guard !scaled.isEmpty else {
            // Only the bars of contain: no input row is read, but a window holds one (the first
            // row above the picture, the last below).
            let height = reduction.decodedSize.height
            return scaled.lowerBound == 0 ? 0..<1 : (height - 1)..<height
        }
        return try windowed(layout, reduction).sourceRows(forOutput: scaled)
    }

    public func makeRows(_ rows: Range<Int>, from input: StageInput) throws -> Image {
        let layout = layout(for: input.picture.fullSize)
        if let strategy = position.strategy {
            // A whole stage: the window is chosen from every pixel.
            let source = input.wholeSource
            let mapped = source.map(layout.window)
            let window = try SmartCrop.window(width: mapped.width, height: mapped.height, in: source, strategy: strategy)
            return try source.image.resampled(from: window, to: layout.scaled, kernel: kernel, linearLight: linearLight)
        }
        let scaled = scaledRows(layout, rows)
        let band = scaled.isEmpty ? nil : try windowed(layout, input.picture).rows(scaled, fromWindow: input.pixels, top: input.top)
        guard layout.output != layout.scaled || translucentCanvas else { return band! }
        // The canvas's rows (with no band, the window goes past the right edge: bars alone).
        let top = Int(layout.origin.y) + scaled.lowerBound - rows.lowerBound
        return try Image.canvas(size: Size(layout.output.width, rows.count), background: background, placing: band ?? input.pixels,
                                at: band == nil ? (layout.output.width, 0) : (Int(layout.origin.x), top))
    }
}

extension ResizeStage: RegionOnLoadStage {
    /// The columns under the kernel across the region scaled; every column for a smart window,
    /// chosen from the whole input.
    public func inputColumns(of reduction: DecodeReduction) throws -> Range<Int> {
        guard position.strategy == nil else { return 0..<reduction.decodedSize.width }
        return try windowed(layout(for: reduction.fullSize), reduction).sourceColumns
    }
}
