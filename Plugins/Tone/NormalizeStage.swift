import ImagePipe

/// `normalize [lower=1%] [upper=99%]` — sharp's normalise: the lightness L* (CIE L*a*b*) at the
/// `lower` percentile of the picture's pixels becomes 0 and at the `upper` percentile 100,
/// linearly between, clipped beyond; a* and b* (hue and chroma) are kept. The percentiles
/// ignore the extremes, so a few specks of noise do not hold the stretch back.
///
/// Fully transparent pixels are left out of the histogram (their colour is not seen). L* is
/// counted in bins of 0.1 (sharp counts whole units). A picture whose percentiles meet (one
/// flat tone) is returned unchanged.
public struct NormalizeStage: Transform, DeclaredStage {
    public static let declaration = StageDeclaration(
        "normalize", summary: "Stretch lightness so its percentiles span the full range, as sharp's normalize (an animation's first frame decides it)",
        example: "normalize lower=2% upper=98%", start: NormalizeStage(), [
            Param(\.lower, "lower", .percentage(0...100), default: 1,
                  help: "The share of pixels (by lightness) that become black or darker: they are clipped to black."),
            Param(\.upper, "upper", .percentage(0...100), default: 99,
                  help: "The share of pixels at or below the lightness that becomes white; those above are clipped to white."),
        ])

    public var lower: Double
    public var upper: Double

    public init(lower: Double = 1, upper: Double = 99) {
        self.lower = lower
        self.upper = upper
    }

    public func check() throws(ArgumentError) {
        guard lower < upper else {
            throw .parameter("upper", "upper \(NumberFormat.text(upper))% must be above lower \(NumberFormat.text(lower))%")
        }
    }

    public func outputSize(for input: Size) -> Size { input }

    public func explanation(for input: Size) -> String? {
        "L* from its \(NumberFormat.short(lower))% to its \(NumberFormat.short(upper))% percentile stretched to 0…100 (measured on the pixels)"
    }

    /// Bins of L* per unit.
    static let binsPerUnit = 10
    static let binCount = 100 * binsPerUnit

    /// L* depends on luminance Y alone: tables from a pixel's channels to Y (in steps of the
    /// sRGB encoding table) and from Y to its bin avoid a cube root per pixel. Made once.
    static let bins: [Int32] = (0...SRGB.encodeSteps).map { step in
        let l = CIELab.fromLinear(SIMD3(repeating: Float(step) / Float(SRGB.encodeSteps)))[0]
        return Int32(min(binCount - 1, max(0, Int(l * Float(binsPerUnit)))))
    }

    /// The L* range (lower, upper percentile) of the picture's seen pixels; nil when none is.
    func range(of image: Image) -> (low: Float, high: Float)? {
        let luma = Luma.linearLight, steps = SRGB.encodeSteps, bins = Self.bins
        var histogram = [Int](repeating: 0, count: Self.binCount)
        luma.contributions.withUnsafeBufferPointer { c in
            bins.withUnsafeBufferPointer { bin in
                for y in 0..<image.height {
                    let row = image.row(y).baseAddress!, channels = image.channelCount
                    for x in 0..<image.width {
                        let p = row + x * channels
                        if channels == 4 && p[3] == 0 { continue }
                        let sum = c[Int(p[0])] + c[256 + Int(p[1])] + c[512 + Int(p[2])]
                        histogram[Int(bin[Int(min(sum, Float(steps)) + 0.5)])] += 1
                    }
                }
            }
        }
        let total = histogram.reduce(0, +)
        guard total > 0 else { return nil }
        var cumulative = 0, low: Int?, high: Int?
        for (index, count) in histogram.enumerated() {
            cumulative += count
            if low == nil, Double(cumulative) > lower / 100 * Double(total) { low = index }
            if high == nil, Double(cumulative) >= upper / 100 * Double(total) { high = index + 1 }
        }
        let unit = Float(Self.binsPerUnit)
        return (Float(low ?? 0) / unit, Float(high ?? Self.binCount) / unit)
    }

    public func apply(to image: Image) throws -> Image {
        // One bin wide (one tone): nothing to stretch.
        // An animation's frames all take the first frame's stretch, so that they keep their tones.
        let stretch: [Float]? = FrameDecisions.decide { self.range(of: image).map { [$0.low, $0.high] } }
        guard let stretch, case let (low, high) = (stretch[0], stretch[1]), high - low > 1.5 / Float(Self.binsPerUnit) else { return image }
        let gain = 100 / (high - low)
        return try image.mapColors(workPerPixel: 80) { rgb in
            let lab = CIELab.fromSRGB(rgb)
            return CIELab.toSRGB(SIMD3(min(max((lab[0] - low) * gain, 0), 100), lab[1], lab[2]))
        }
    }
}
