/// One axis of resampling a JPEG's plane as it is decoded (`imagepipe_plane_resampler`): the
/// weights, in 14-bit fixed point, that make the output from the plane's samples.
///
/// A chroma plane at half the decode's resolution is not upsampled first: libjpeg's upsampling
/// ("fancy": each full-size sample 3/4 of the nearer half-size one and 1/4 of the farther,
/// the edge sample repeated) is linear, so it is folded into the weights, and the output is what
/// upsampling and then resampling gives, but from half the samples and with one rounding.
package struct PlaneAxis: Sendable {
    /// Taps per output pixel (the widest); shorter ones are padded with zero weights.
    package let taps: Int
    /// The first plane sample of each output pixel, and how many it reads.
    package let first: [Int32]
    package let used: [Int32]
    /// `first.count × taps` weights, each output pixel's summing to 1 << 14.
    package let weights: [Int16]

    /// The weights that make `outputLength` pixels of the first `extent` pixels of a decode
    /// `decodeLength` long (the picture's whole extent in the decode's pixels), from a plane of
    /// `planeLength` samples covering that decode at full or half resolution. nil for other
    /// resolutions, and for a reduction of 16 or more, which the RGB resampler would pre-shrink
    /// with a box (`ResampleAxis`): the planes then give way to it, so as to give the same picture.
    package init?(kernel: Kernel, decodeLength: Int, planeLength: Int, outputLength: Int, extent: Double) {
        guard decodeLength > 0, outputLength > 0, extent > 0, extent / Double(outputLength) < 16 else { return nil }
        let table = WeightTable(kernel: kernel, inputLength: decodeLength, outputLength: outputLength, start: 0, extent: extent)
        if planeLength == decodeLength {
            self.init(taps: table.taps, first: table.first, used: table.used, fixed: table.fixedWeights)
            return
        }
        guard planeLength == (decodeLength + 1) / 2 else { return nil }
        var first = [Int](repeating: 0, count: outputLength), used = first
        var folded: [[Double]] = []
        folded.reserveCapacity(outputLength)
        for i in 0..<outputLength {
            // Full-size sample x is 3/4 of half-size sample x / 2 and 1/4 of its neighbour on
            // x's side, clamped to the plane.
            let low = max(0, table.first[i] / 2 - 1), high = min(planeLength - 1, (table.first[i] + table.used[i] - 1) / 2 + 1)
            var weights = [Double](repeating: 0, count: high - low + 1)
            for k in 0..<table.used[i] {
                let x = table.first[i] + k, w = Double(table.weights[i * table.taps + k]), near = x / 2
                let far = x % 2 == 0 ? max(0, near - 1) : min(planeLength - 1, near + 1)
                weights[near - low] += 0.75 * w
                weights[far - low] += 0.25 * w
            }
            var lead = 0, trail = weights.count
            while lead < trail - 1, weights[lead] == 0 { lead += 1 }
            while trail - 1 > lead, weights[trail - 1] == 0 { trail -= 1 }
            first[i] = low + lead
            used[i] = trail - lead
            folded.append(Array(weights[lead..<trail]))
        }
        let taps = used.max()!
        var weights = [Float](repeating: 0, count: outputLength * taps)
        for i in 0..<outputLength {
            for (k, w) in folded[i].enumerated() { weights[i * taps + k] = Float(w) }
        }
        self.init(taps: taps, first: first, used: used, fixed: WeightTable.fixed(weights, taps: taps, used: used))
    }

    private struct Key: Hashable {
        let kernel: Kernel, decodeLength: Int, planeLength: Int, outputLength: Int, extent: Double
    }

    /// The axes made lately (as `WindowedResampling` keeps its own): a 2048×1280 4:2:0 photo's
    /// four axes to 640×400 come to about 90 KB, so 4 MiB hold some forty picture sizes'.
    private static let cache = RecentCache<Key, PlaneAxis>(bytes: 4 << 20)

    /// `init(kernel:decodeLength:planeLength:outputLength:extent:)`, from the cache when it was made lately.
    package static func cached(kernel: Kernel, decodeLength: Int, planeLength: Int, outputLength: Int, extent: Double) -> PlaneAxis? {
        let key = Key(kernel: kernel, decodeLength: decodeLength, planeLength: planeLength, outputLength: outputLength, extent: extent)
        return cache.value(for: key, bytes: { 2 * $0.weights.count + 4 * ($0.first.count + $0.used.count) }) {
            PlaneAxis(kernel: kernel, decodeLength: decodeLength, planeLength: planeLength, outputLength: outputLength, extent: extent)
        }
    }

    private init(taps: Int, first: [Int], used: [Int], fixed: [Int16]) {
        self.taps = taps
        self.first = first.map { Int32($0) }
        self.used = used.map { Int32($0) }
        weights = fixed
    }
}
