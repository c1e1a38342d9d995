import ImagePipeCore

/// `sharpen [sigma=1] [amount=1] [threshold=0]` — an unsharp mask on lightness: the picture's
/// luma minus its Gaussian blur, times `amount`, added back where it exceeds `threshold`
/// (ImageMagick's `-unsharp 0xσ+amount+threshold`, but on lightness as sharp's sharpen).
///
/// Lightness here is the Rec. 709 luma Y′ of the sRGB-encoded values (the Y′ of Y′CbCr), and
/// the difference is added to R, G and B alike: that changes Y′ by exactly the difference and
/// leaves Cb and Cr untouched, so edges sharpen without colour fringes. Because luma is a
/// weighted sum, the blur of luma is the luma of the blurred picture: one blur of the colour,
/// no conversion to and from a lightness space.
public struct SharpenStage: Transform, DeclaredStage {
    public static let declaration = StageDeclaration(
        "sharpen", summary: "Unsharp mask on lightness: sharper edges without color fringes",
        example: "sharpen sigma=1.5 amount=0.8", start: SharpenStage(), [
            Param(\.sigma, "sigma", .number(0.3...100), default: 1,
                  help: "The standard deviation in pixels of the blur the detail is measured against: about the width of the edges to sharpen. ImageMagick's sharpen 0x1+1.5+0.02 (radius 0, sigma, amount, threshold as a fraction) is read as sigma=1 amount=1.5 threshold=5.1."),
            Param(\.amount, "amount", .number(0...20), default: 1,
                  help: "How much of the detail (luma minus its blur) is added back: 1 doubles it, as ImageMagick's default."),
            Param(\.threshold, "threshold", .number(0...255), default: 0,
                  help: "Differences below this many levels (of 255) are left alone, so flat areas and noise are not sharpened; 0 sharpens everything, as sharp does."),
        ])

    public var sigma: Double
    public var amount: Double
    public var threshold: Double

    public init(sigma: Double = 1, amount: Double = 1, threshold: Double = 0) {
        self.sigma = sigma
        self.amount = amount
        self.threshold = threshold
    }

    public func outputSize(for input: Size) -> Size { input }
    public var stageClass: StageClass { .area(radius: ConvolutionKernel.gaussian(sigma: sigma).radius) }

    public func explanation(for input: Size) -> String? {
        let taps = ConvolutionKernel.gaussian(sigma: sigma).weights.count
        return "unsharp mask on luma Y′: + \(NumberFormat.short(amount)) × (Y′ − Gaussian σ \(NumberFormat.short(sigma)), \(taps)×\(taps) taps)"
            + (threshold > 0 ? " where it exceeds \(NumberFormat.short(threshold)) levels" : "")
    }

    public func makeRows(_ rows: Range<Int>, from input: StageInput) throws -> Image {
        let amount = Float(self.amount), threshold = Float(self.threshold)
        // Rec. 709 weights on 0…1 values giving levels (0…255).
        let luma = SIMD4<Float>(0.2126, 0.7152, 0.0722, 0) * 255
        let lumaBytes = SIMD3<Float>(0.2126, 0.7152, 0.0722)
        return try Convolution.gaussian(sigma: sigma).apply(to: input.pixels, rows: input.local(rows)) { row in
            let channels = row.channels
            for i in 0..<row.width {
                var blurred = row.filtered[i]
                if channels == 4 {
                    let a = blurred[3]
                    blurred = a > 0 ? blurred / a : .zero
                }
                let s = row.source + i * channels, t = row.target + i * channels
                let colour = SIMD3<Float>(Float(s[0]), Float(s[1]), Float(s[2]))
                var detail = (colour * lumaBytes).sum() - (blurred * luma).sum()
                if abs(detail) < threshold { detail = 0 }
                let out = colour + SIMD3(repeating: amount * detail)
                t[0] = PremultipliedPixels.byte(out[0])
                t[1] = PremultipliedPixels.byte(out[1])
                t[2] = PremultipliedPixels.byte(out[2])
                if channels == 4 { t[3] = s[3] }
            }
        }
    }
}
