import ImagePipeCore

/// `crop-editor viewport=WxH [zoom=auto] [offset=x,y] [gap=0] [rotated-from=WxH]` — what seed
/// 000's editor screen shows: black background, the picture at that zoom and offset, the dimmed
/// even-odd mask and the dashed ring.
public struct CropEditorStage: ShrinkOnLoadStage, DeclaredStage {
    public static let declaration = StageDeclaration(
        "crop-editor", summary: "Render the avatar editor's screen: picture, dimmed outside, dashed ring (seed 000)",
        example: "crop-editor 375x667 zoom=1.5", start: try CropEditorStage(viewport: Size(1, 1)), [
            Param(\.viewport, "viewport", .size(max: 20_000), positional: true, help: "The screen W×H; the output is exactly this size."),
            EditorParameters.zoom(\.zoom),
            EditorParameters.offset(\.offset),
            EditorParameters.gap(\.gap),
            Param(\.rotatedFrom, "rotated-from", .size(max: 20_000),
                  help: "The viewport the zoom and offset were set in before the device turned: the circle is laid out again for viewport, and the state re-clamped, as the editor does on rotation."),
            ScalingParameters.kernel(\.kernel),
            ScalingParameters.linearLight(\.linearLight),
        ])

    /// The seed's mask: black at alpha 0.35, and a white ring of width 2 dashed 4 on 4 off.
    static let dimming = Color(red: 0, green: 0, blue: 0, alpha: 0x59)

    public var viewport: Size
    public var zoom: Double?
    public var offset: Point?
    public var gap: Double
    public var rotatedFrom: Size?
    public var kernel: Kernel?
    public var linearLight = false

    public init(viewport: Size, zoom: Double? = nil, offset: Point? = nil, gap: Double = 0, rotatedFrom: Size? = nil) throws {
        self.viewport = viewport
        self.zoom = zoom
        self.offset = offset
        self.gap = gap
        self.rotatedFrom = rotatedFrom
        try check()
    }

    public func check() throws(ArgumentError) {
        try EditorParameters.check(gap: gap, viewport: viewport)
        if let rotatedFrom { try EditorParameters.check(gap: gap, viewport: rotatedFrom) }
    }

    /// The editor's layout and settled state for a picture, after the relayout if it turned.
    public func layout(for input: Size) -> (viewport: CropViewport, state: CropViewport.State) {
        let first = CropViewport(viewport: rotatedFrom ?? viewport, gap: gap, imageSize: input)
        let state = EditorParameters.state(of: first, zoomFactor: zoom, offset: offset)
        return rotatedFrom == nil ? (first, state) : first.relayout(to: viewport, state)
    }

    public func outputSize(for input: Size) -> Size { viewport }

    /// The screen it renders is opaque, whatever the picture.
    public func outputHasAlpha(inputHasAlpha: Bool) -> Bool { false }

    public func explanation(for input: Size) -> String? {
        let (model, state) = layout(for: input)
        return "zoom \(NumberFormat.short(state.zoom)) (zmin \(NumberFormat.short(model.minimumZoom)), zmax \(NumberFormat.short(model.maximumZoom))), offset \(NumberFormat.short(state.offset.x)),\(NumberFormat.short(state.offset.y)), circle diameter \(NumberFormat.short(model.diameter))\(rotatedFrom.map { " after turning from \($0)" } ?? "")"
    }

    /// Below zoom 1 the screen shows the picture reduced, so that much of it is enough.
    public func reducedInput(for input: Size) -> Size? {
        let zoom = layout(for: input).state.zoom
        return zoom < 1 ? input.scaledUp(by: zoom) : nil
    }

    public func makeRows(_ rows: Range<Int>, from input: StageInput) throws -> Image {
        let source = input.wholeSource
        let input = source.fullSize
        let (model, state) = layout(for: input)
        let z = state.zoom, o = state.offset
        // The viewport pixels the picture covers; the picture's origin is at −offset.
        func covered(_ length: Int, _ offset: Double, _ extent: Int) -> (Int, Int) {
            let start = min(max(Rounding.pixels(-offset), 0), length)
            let end = min(max(Rounding.pixels(-offset + Double(extent) * z), 0), length)
            return (start, end)
        }
        let (left, right) = covered(viewport.width, o.x, input.width)
        let (top, bottom) = covered(viewport.height, o.y, input.height)
        var screen = try Image.filled(.black, size: viewport)
        if right > left, bottom > top {
            let region = Region(x: (Double(left) + o.x) / z, y: (Double(top) + o.y) / z,
                                width: Double(right - left) / z, height: Double(bottom - top) / z)
            let shown = try source.image.resampled(from: source.map(region), to: Size(right - left, bottom - top),
                                                   kernel: kernel, linearLight: linearLight)
            screen = try Image.canvas(size: viewport, background: .black, placing: shown, at: (left, top), blend: true)
        }
        let circle = Point(model.circleOrigin.x + model.diameter / 2, model.circleOrigin.y + model.diameter / 2)
        return try CirclePainter.mask(screen, center: circle, radius: model.diameter / 2, fill: Self.dimming, ring: DashedRing())
    }
}
