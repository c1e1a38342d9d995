import ImagePipeCore

/// `convolve WxH WEIGHTS [scale=auto] [offset=0]` — any convolution kernel, as libvips' `conv`
/// and ImageMagick's `-convolve`: each output is the weighted sum of the W×H pixels around it,
/// divided by `scale`, plus `offset`. `convolve 3x3 0,-1,0,-1,5,-1,0,-1,0` sharpens;
/// `convolve 3x3 -1,-1,-1,-1,8,-1,-1,-1,-1 offset=128` finds edges.
///
/// Alpha: colour is convolved premultiplied (transparent pixels add no colour). When the weights
/// sum to more than 0 (smoothing and sharpening kernels) alpha is convolved too, normalised by
/// that sum, so a blur spreads it as it spreads colour; when they sum to 0 or less (edge and
/// emboss kernels, whose alpha would vanish) each pixel keeps its own alpha.
public struct ConvolveStage: Transform, DeclaredStage {
    public static let declaration = StageDeclaration(
        "convolve", summary: "Convolve with a kernel of W×H weights",
        example: "convolve 3x3 0,-1,0,-1,5,-1,0,-1,0", start: ConvolveStage(size: Size(1, 1), weights: [1]), [
            Param(\.size, "size", .size(max: 15), positional: true,
                  help: "The kernel's W×H, each side odd (1 to 15) so that it is centered on its pixel."),
            Param(\.weights, "weights", .numbers(count: 1...225, each: -1_000_000...1_000_000), positional: true,
                  help: "W×H weights, row by row, comma-separated."),
            Param(\.scale, "scale", .number(-1_000_000...1_000_000), auto: true,
                  help: "The weighted sum is divided by this; auto is the weights' sum, or 1 when they sum to 0 (as libvips and ImageMagick)."),
            Param(\.offset, "offset", .number(-1000...1000), default: 0,
                  help: "Added to each color channel after scaling, in levels of 255 (128 shows an edge kernel's negative responses)."),
        ])

    public var size: Size
    public var weights: [Double]
    public var scale: Double?
    public var offset: Double

    public init(size: Size, weights: [Double], scale: Double? = nil, offset: Double = 0) {
        self.size = size
        self.weights = weights
        self.scale = scale
        self.offset = offset
    }

    public func check() throws(ArgumentError) {
        guard size.width % 2 == 1, size.height % 2 == 1 else {
            throw .parameter("size", "kernel size \(size) has an even side; each side must be odd (1, 3, 5 … 15) to be centered")
        }
        guard weights.count == size.width * size.height else {
            throw .parameter("weights", "a \(size) kernel needs \(size.width * size.height) weights, not \(weights.count)")
        }
        if scale == 0 { throw .parameter("scale", "scale 0 would divide by zero; give another number, or auto") }
    }

    /// The divisor: `scale`, or the weights' sum, or 1 if that is 0.
    public var effectiveScale: Double { divisor(sum: weights.reduce(0, +)) }

    /// The divisor for weights summing to `sum` (which `apply` needs too, so sums once).
    private func divisor(sum: Double) -> Double { scale ?? (sum == 0 ? 1 : sum) }

    public func outputSize(for input: Size) -> Size { input }
    public var stageClass: StageClass { .area(radius: size.height / 2) }

    public func explanation(for input: Size) -> String? {
        "\(size) kernel, ÷ \(NumberFormat.short(effectiveScale))" + (offset != 0 ? " + \(NumberFormat.short(offset))" : "")
            + ", premultiplied, edges clamped"
    }

    public func makeRows(_ rows: Range<Int>, from input: StageInput) throws -> Image {
        let sum = weights.reduce(0, +), scale = divisor(sum: sum)
        let convolution = Convolution(width: size.width, height: size.height, weights: weights.map { Float($0 / scale) })
        // The alpha lane comes out as Σw·α / scale; × scale / sum normalises it.
        let alphaFactor = Float(sum > 0 ? scale / sum : 0), keepsAlpha = sum <= 0
        let offset = Float(self.offset)
        return try convolution.apply(to: input.pixels, rows: input.local(rows)) { row in
            let channels = row.channels
            for i in 0..<row.width {
                let v = row.filtered[i], s = row.source + i * channels, t = row.target + i * channels
                var colour = SIMD3(v[0], v[1], v[2])
                if channels == 4 {
                    var a = keepsAlpha ? Float(s[3]) / 255 : v[3] * alphaFactor
                    if !(a >= 0) { a = 0 } // NaN too, from weights that overflow Float
                    a = min(a, 1)
                    colour = a > 0 ? colour / a : .zero
                    t[3] = PremultipliedPixels.byte(a * 255)
                }
                let out = colour * 255 + SIMD3(repeating: offset)
                t[0] = PremultipliedPixels.byte(out[0])
                t[1] = PremultipliedPixels.byte(out[1])
                t[2] = PremultipliedPixels.byte(out[2])
            }
        }
    }
}
