import ImagePipeCore

/// `blur SIGMA` — a true Gaussian blur of standard deviation SIGMA pixels: separable, in
/// premultiplied alpha, edges extended by repeating the border pixels.
///
/// Why no box-blur shortcut: the best cascades of 3 to 6 integer-width boxes differ from the
/// Gaussian by 3 to 23 levels in the worst case at σ 3–30 (255 · ½‖gauss − boxes‖₁, per axis;
/// `python3 Benchmarks/box_blur_error.py`), far from the ±1 level a shortcut would have to hold.
public struct BlurStage: Transform, DeclaredStage {
    public static let declaration = StageDeclaration(
        "blur", summary: "Gaussian blur of standard deviation SIGMA pixels",
        example: "blur 3", start: BlurStage(sigma: 1), [
            Param(\.sigma, "sigma", .number(0.3...100), positional: true,
                  help: "The Gaussian's standard deviation in pixels, from 0.3 (as sharp's blur) to 100; the kernel reaches 3σ each way (6σ + 1 taps per axis), so the cost grows with σ."),
        ])

    public var sigma: Double

    public init(sigma: Double) { self.sigma = sigma }

    public func outputSize(for input: Size) -> Size { input }
    public var stageClass: StageClass { .area(radius: ConvolutionKernel.gaussian(sigma: sigma).radius) }

    public func explanation(for input: Size) -> String? {
        let taps = ConvolutionKernel.gaussian(sigma: sigma).weights.count
        return "Gaussian σ \(NumberFormat.short(sigma)): \(taps) taps across, then \(taps) down, premultiplied, edges clamped"
    }

    public func makeRows(_ rows: Range<Int>, from input: StageInput) throws -> Image {
        try Convolution.gaussian(sigma: sigma).apply(to: input.pixels, rows: input.local(rows)) { $0.store() }
    }
}
