import ImagePipeCore

/// `fit WxH [zoom=1] [upscale=true]` — seed 004's fit-to-screen zoom: the whole picture in a
/// W×H viewport, aspect kept, at `zoom` × the fitting zoom.
public struct FitStage: ShrinkOnLoadStage, DeclaredStage {
    public static let declaration = StageDeclaration(
        "fit", summary: "Scale to fit inside WxH, keeping the aspect: a fit-to-screen zoom (seed 004)",
        example: "fit 1280x720", start: FitStage(1, 1), [
            Param(\.size, "size", .size(max: 100_000), positional: true,
                  help: "The viewport W×H. The picture's limiting side becomes exactly W or H; the other side rounds to the nearest pixel."),
            Param(\.zoom, "zoom", .number(1...64), default: 1,
                  help: "Zoom relative to the fitting zoom zmin = min(W/w, H/h); 1 shows the whole picture."),
            Param(\.upscale, "upscale", .boolean, default: true,
                  help: "Whether a picture smaller than the viewport is enlarged; false never enlarges."),
            ScalingParameters.kernel(\.kernel),
            ScalingParameters.linearLight(\.linearLight),
        ])

    public var size: Size
    public var zoom: Double
    public var upscale: Bool
    public var kernel: Kernel?
    public var linearLight = false

    public init(_ width: Int, _ height: Int, zoom: Double = 1, upscale: Bool = true) {
        self.init(size: Size(width, height), zoom: zoom, upscale: upscale)
    }

    public init(size: Size, zoom: Double = 1, upscale: Bool = true) {
        self.size = size
        self.zoom = zoom
        self.upscale = upscale
    }

    public func outputSize(for input: Size) -> Size {
        let viewport = FitViewport(viewport: size, imageSize: input)
        if !upscale, viewport.minimumZoom * zoom > 1 { return input }
        return viewport.displayedSize(zoomFactor: zoom)
    }

    public func explanation(for input: Size) -> String? {
        let output = outputSize(for: input)
        return "scale ×\(NumberFormat.short(Double(output.width) / Double(input.width))) (zmin \(NumberFormat.short(FitViewport(viewport: size, imageSize: input).minimumZoom)) × zoom \(NumberFormat.short(zoom)))"
    }

    /// A fit needs no more than its output: a reduced decode at least that large will do.
    public func reducedInput(for input: Size) -> Size? {
        let output = outputSize(for: input)
        return output.width < input.width && output.height < input.height ? output : nil
    }

    /// A fit that shrinks is the whole picture resampled: a JPEG's decoder may do it in its planes.
    public func wholeResampling(for input: Size) -> WholeResampling? {
        guard !linearLight, let output = reducedInput(for: input) else { return nil }
        return WholeResampling(size: output, kernel: kernel)
    }

    /// Each strip of the output from the window of input rows its kernel reaches, as `resize`.
    public var stageClass: StageClass { .resample }

    /// The whole picture's resampling from the decode's rows, through the decode's mapping.
    private func windowed(_ reduction: DecodeReduction) throws -> WindowedResampling {
        try WindowedResampling(sourceSize: reduction.decodedSize, region: reduction.wholePicture, to: outputSize(for: reduction.fullSize),
                                      kernel: kernel, linearLight: linearLight)
    }

    public func inputRows(forOutput rows: Range<Int>, of input: DecodeReduction) throws -> Range<Int> {
        try windowed(input).sourceRows(forOutput: rows)
    }

    public func makeRows(_ rows: Range<Int>, from input: StageInput) throws -> Image {
        try windowed(input.picture).rows(rows, fromWindow: input.pixels, top: input.top)
    }
}
