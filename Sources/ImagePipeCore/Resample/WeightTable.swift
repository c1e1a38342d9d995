/// The weights that make each output pixel of one axis from the input pixels around it,
/// computed once per resampling and shared by every row (or column).
///
/// Geometry is exact: output pixel `i` has its centre at `start + (i + 0.5) · extent / count`
/// in input coordinates, where input pixel `j` spans `j…j+1` (centre `j + 0.5`). So a window that
/// starts between pixels is sampled there, not rounded to the pixel grid. When shrinking, the
/// kernel is stretched by the reduction. Taps that would fall outside the input are dropped and
/// the rest renormalised to sum 1, so edges neither darken nor repeat a pixel.
struct WeightTable {
    /// The number of output pixels.
    let count: Int
    /// Taps per output pixel (the widest); shorter rows are padded with zero weights.
    let taps: Int
    /// The first input pixel of each output pixel.
    let first: [Int]
    /// How many taps each output pixel really uses (the rest of its `taps` slots are zero).
    let used: [Int]
    /// `count × taps` weights, output pixel by output pixel.
    let weights: [Float]
    /// The same weights in 14-bit fixed point, each output pixel's summing to exactly
    /// `fixedOne` (so a flat picture stays flat), for the integer column pass of `ResamplePass`.
    let fixedWeights: [Int16]
    /// 1 in `fixedWeights`: 14 bits leave room for a weight of 1 and the negative lobes in an
    /// `Int16`, and a pair of 8-bit levels times weights in one 32-bit sum.
    static let fixedOne = 1 << 14

    /// What the table holds, in bytes (what a cache of tables counts).
    var bytes: Int { 4 * weights.count + 2 * fixedWeights.count + 8 * (first.count + used.count) }

    init(kernel: Kernel, inputLength: Int, outputLength: Int, start: Double, extent: Double) {
        precondition(inputLength > 0 && outputLength > 0 && extent > 0)
        let step = extent / Double(outputLength)
        let stretch = kernel == .nearest ? 1 : max(1, step)
        let radius = kernel.support * stretch
        let taps = kernel == .nearest ? 1 : Int((2 * radius).rounded(.up)) + 1
        var first = [Int](repeating: 0, count: outputLength)
        var used = [Int](repeating: 0, count: outputLength)
        var weights = [Float](repeating: 0, count: outputLength * taps)
        var scratch = [Double](repeating: 0, count: taps)
        for i in 0..<outputLength {
            let center = start + (Double(i) + 0.5) * step
            if kernel == .nearest {
                first[i] = min(max(Int(center.rounded(.down)), 0), inputLength - 1)
                used[i] = 1
                weights[i * taps] = 1
                continue
            }
            // Input pixels whose centre lies within the kernel's reach.
            let low = max(0, Int((center - radius - 0.5).rounded(.up)))
            let high = min(inputLength - 1, Int((center + radius - 0.5).rounded(.down)))
            var total = 0.0
            var n = 0
            if low <= high {
                for j in low...min(high, low + taps - 1) {
                    let w = kernel == .box
                        ? Self.overlap(Double(j), Double(j) + 1, center - stretch / 2, center + stretch / 2)
                        : kernel.weight((Double(j) + 0.5 - center) / stretch)
                    scratch[n] = w
                    total += w
                    n += 1
                }
            }
            guard n > 0, abs(total) > 1e-12 else {
                // Far outside the input (a window past the edge): the nearest edge pixel.
                first[i] = min(max(Int(center.rounded(.down)), 0), inputLength - 1)
                used[i] = 1
                weights[i * taps] = 1
                continue
            }
            // Trim zero weights at the ends so loops do no empty work.
            var lead = 0, trail = n
            while lead < trail - 1, scratch[lead] == 0 { lead += 1 }
            while trail - 1 > lead, scratch[trail - 1] == 0 { trail -= 1 }
            first[i] = low + lead
            used[i] = trail - lead
            for k in lead..<trail { weights[i * taps + k - lead] = Float(scratch[k] / total) }
        }
        self.count = outputLength
        self.taps = taps
        self.first = first
        self.used = used
        self.weights = weights
        fixedWeights = Self.fixed(weights, taps: taps, used: used)
    }

    /// `weights` rounded to `fixedOne`ths: each within half a `fixedOne`th, but each pixel's
    /// largest, which takes up what the rounding added or lost in all.
    static func fixed(_ weights: [Float], taps: Int, used: [Int]) -> [Int16] {
        var fixed = weights.map { Int16((Double($0) * Double(fixedOne)).rounded()) }
        for (i, count) in used.enumerated() {
            let slots = (i * taps)..<(i * taps + count)
            let excess = slots.reduce(0) { $0 + Int(fixed[$1]) } - fixedOne
            let largest = slots.max { fixed[$0] < fixed[$1] }!
            fixed[largest] -= Int16(excess)
        }
        return fixed
    }

    /// The length of the overlap of two intervals.
    private static func overlap(_ a0: Double, _ a1: Double, _ b0: Double, _ b1: Double) -> Double {
        max(0, min(a1, b1) - max(a0, b0))
    }

    /// The input pixels any output pixel reads: `lowerBound` to `upperBound` (exclusive).
    var inputSpan: Range<Int> {
        var low = Int.max, high = Int.min
        for i in 0..<count {
            low = min(low, first[i])
            high = max(high, first[i] + used[i])
        }
        return low..<high
    }
}
