import ImagePipeCore

/// The histogram of L* (CIE L*a*b* lightness) that `normalize` stretches by, counted strip by
/// strip in a streamed run's first read (`PixelSurvey`) or over a whole picture at once.
public struct LightnessHistogram: PixelSurvey, Equatable, Sendable {
    /// Bins of L* per unit.
    static let binsPerUnit = 10
    static let binCount = 100 * binsPerUnit

    /// L* depends on luminance Y alone: tables from a pixel's channels to Y (in steps of the
    /// sRGB encoding table) and from Y to its bin avoid a cube root per pixel. Made once.
    static let bins: [Int32] = (0...SRGB.encodeSteps).map { step in
        let l = CIELab.fromLinear(SIMD3(repeating: Float(step) / Float(SRGB.encodeSteps)))[0]
        return Int32(min(binCount - 1, max(0, Int(l * Float(binsPerUnit)))))
    }

    private var counts = [Int](repeating: 0, count: binCount)

    public mutating func look(at rows: Image, at position: StripPosition) { count(rows) }

    /// Counts `image`'s seen pixels: fully transparent ones are left out.
    mutating func count(_ image: Image) {
        let luma = Luma.linearLight, steps = SRGB.encodeSteps
        luma.contributions.withUnsafeBufferPointer { c in
            Self.bins.withUnsafeBufferPointer { bin in
                counts.withUnsafeMutableBufferPointer { histogram in
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
        }
    }

    /// The L* at the `lower` and `upper` percentiles of the pixels counted; nil when none was.
    func range(lower: Double, upper: Double) -> LightnessRange? {
        let total = counts.reduce(0, +)
        guard total > 0 else { return nil }
        var cumulative = 0, low: Int?, high: Int?
        for (index, count) in counts.enumerated() {
            cumulative += count
            if low == nil, Double(cumulative) > lower / 100 * Double(total) { low = index }
            if high == nil, Double(cumulative) >= upper / 100 * Double(total) { high = index + 1 }
        }
        let unit = Float(Self.binsPerUnit)
        return LightnessRange(low: Float(low ?? 0) / unit, high: Float(high ?? Self.binCount) / unit)
    }
}
