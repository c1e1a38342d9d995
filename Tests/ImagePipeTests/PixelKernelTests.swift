import CPixelKernels
import Testing

/// The resampler's integer kernels in C, each version this CPU has against plain arithmetic.
struct PixelKernelTests {
    /// The column pass (`imagepipe_weighted_row_sums`): exactly the sums, at every width (whole
    /// AVX2 and SSE2 steps, and the bytes left over), for odd and even row counts and negative
    /// weights.
    @Test(arguments: ["avx2", "sse2", "portable"]) func everyVersionSumsExactly(version: String) throws {
        var generator = SystemRandomNumberGenerator()
        for width in [1, 15, 16, 17, 31, 32, 33, 47, 64, 100, 3 * 641] {
            for pairs in 1...6 {
                let rows = (0..<(2 * pairs)).map { _ in (0..<width).map { _ in UInt8.random(in: 0...255, using: &generator) } }
                // Lanczos-like: one large weight, small negative lobes; the last weight 0, as
                // when an odd row count is padded.
                var weights = (0..<(2 * pairs)).map { _ in Int16.random(in: -3000...9000, using: &generator) }
                weights[0] = 16384
                weights[2 * pairs - 1] = 0
                let expected = (0..<width).map { c in (0..<(2 * pairs)).reduce(Int32(0)) { $0 + Int32(rows[$1][c]) * Int32(weights[$1]) } }
                var sums = [Int32](repeating: .min, count: width)
                let ran = withPointers(rows) { pointers in
                    imagepipe_weighted_row_sums_version(version, pointers, weights, Int32(pairs), Int32(width), &sums)
                }
                if ran == 0 {
                    #expect(version != "portable" && version != String(cString: imagepipe_weighted_row_sums_chosen()))
                    return // this CPU has no such version
                }
                #expect(sums == expected, "\(version), \(width) bytes, \(pairs) pairs")
            }
        }
    }

    /// The row pass (`imagepipe_filter_rgb_row`): every version gives the bytes of the documented
    /// arithmetic (sums narrowed to 64ths, pairs times 14-bit weights, rounded, clamped), for odd
    /// and even output widths, pixels cut short by the edge, sums that overshoot both ways, and
    /// `levels` exactly as long as the header asks.
    @Test(arguments: ["avx2", "ssse3", "portable"]) func everyRowVersionGivesTheSameBytes(version: String) throws {
        var generator = SystemRandomNumberGenerator()
        for (sourcePixels, outputPixels, taps) in [(7, 1, 7), (40, 13, 7), (64, 31, 5), (1281, 640, 12), (300, 37, 19)] {
            let pairsPerPixel = (taps + 1) / 2
            let sums = (0..<(3 * sourcePixels)).map { _ in Int32.random(in: (-20 * 16384)...(290 * 16384), using: &generator) }
            var first = [Int32](), pairs = [Int32](), packed = [Int32](repeating: 0, count: outputPixels * pairsPerPixel)
            var weights = [[Int16]]()
            for i in 0..<outputPixels {
                let start = min(sourcePixels - 1, i * sourcePixels / outputPixels)
                let used = Int.random(in: 1...min(taps, sourcePixels - start), using: &generator)
                var pixelWeights = (0..<used).map { _ in Int16.random(in: -4000...16384, using: &generator) }
                // A real table's weights sum to 16384 and their sizes to less than twice that: so
                // large a total, with the largest levels, would overflow the 32-bit sums (in this
                // test's own arithmetic first, which trapped on one draw in many).
                let magnitude = pixelWeights.reduce(0) { $0 + abs(Int($1)) }
                if magnitude > 32768 { pixelWeights = pixelWeights.map { Int16(Int($0) * 32768 / magnitude) } }
                first.append(Int32(start))
                pairs.append(Int32((used + 1) / 2))
                weights.append(pixelWeights)
                for p in 0..<(used + 1) / 2 {
                    let w0 = pixelWeights[2 * p], w1 = 2 * p + 1 < used ? pixelWeights[2 * p + 1] : 0
                    packed[i * pairsPerPixel + p] = Int32(bitPattern: UInt32(UInt16(bitPattern: w1)) << 16 | UInt32(UInt16(bitPattern: w0)))
                }
            }
            let expected = (0..<outputPixels).flatMap { i in
                (0..<3).map { channel in
                    let total = weights[i].enumerated().reduce(Int32(0)) { total, tap in
                        total + ((sums[3 * (Int(first[i]) + tap.offset) + channel] + 128) >> 8) * Int32(tap.element)
                    }
                    return UInt8(clamping: (total + (1 << 19)) >> 20)
                }
            }
            var levels = [Int16](repeating: 7, count: 3 * sourcePixels + Int(imagepipe_levels_padding(Int32(pairsPerPixel))))
            var out = [UInt8](repeating: 0, count: 3 * outputPixels)
            let ran = first.withUnsafeBufferPointer { first in
                pairs.withUnsafeBufferPointer { pairs in
                    packed.withUnsafeBufferPointer { packed in
                        var table = imagepipe_row_weights(outputPixels: Int32(outputPixels), pairsPerPixel: Int32(pairsPerPixel),
                                                          first: first.baseAddress, pairs: pairs.baseAddress, pairWeights: packed.baseAddress)
                        return imagepipe_filter_rgb_row_version(version, sums, Int32(sourcePixels), &levels, &table, &out)
                    }
                }
            }
            if ran == 0 {
                #expect(version != "portable" && version != String(cString: imagepipe_filter_rgb_row_chosen()))
                return // this CPU has no such version
            }
            #expect(out == expected, "\(version), \(sourcePixels) → \(outputPixels), \(taps) taps")
        }
    }

    /// The plane resampler's row pass (`imagepipe_filter_plane_row`): every version gives the
    /// documented sums, for taps of one to five eights (AVX2's whole steps and its step of
    /// eight), output widths that are and are not whole groups of eight, and levels that
    /// overshoot both ways as a kernel's lobes do.
    @Test(arguments: ["avx2", "portable"]) func everyPlaneRowVersionGivesTheSameValues(version: String) throws {
        var generator = SystemRandomNumberGenerator()
        for (sourcePixels, outputPixels, taps) in [(9, 1, 8), (40, 13, 16), (2048, 640, 24), (1024, 640, 16), (300, 37, 40), (70, 17, 8)] {
            let levels = (0..<(sourcePixels + taps)).map { index in
                index < sourcePixels ? Int16.random(in: -20 * 64...275 * 64, using: &generator) : 0
            }
            let first = (0..<outputPixels).map { Int32(min(sourcePixels - 1, $0 * sourcePixels / outputPixels)) }
            // As large as the 32-bit sums allow a row of taps (a real kernel's sum to 1 << 14).
            let largest = 16384 * 8 / taps
            let weights = (0..<(outputPixels * taps)).map { index in
                index % taps < taps - 3 ? Int16.random(in: Int16(-largest / 4)...Int16(largest), using: &generator) : 0
            }
            let expected = (0..<outputPixels).map { i in
                Int32(((0..<taps).reduce(Int64(0)) { $0 + Int64(levels[Int(first[i]) + $1]) * Int64(weights[i * taps + $1]) } + (1 << 13)) >> 14)
            }
            var values = [Int32](repeating: .min, count: outputPixels)
            let ran = imagepipe_filter_plane_row_version(version, levels, first, weights, Int32(taps), Int32(outputPixels), &values)
            if ran == 0 {
                #expect(version != "portable" && version != String(cString: imagepipe_filter_plane_row_chosen()))
                return // this CPU has no such version
            }
            #expect(values == expected, "\(version), \(sourcePixels) → \(outputPixels), \(taps) taps")
        }
    }

    @Test func theBestVersionsAreChosen() {
        let sums = String(cString: imagepipe_weighted_row_sums_chosen()), rows = String(cString: imagepipe_filter_rgb_row_chosen())
        #expect(["avx2", "sse2", "portable"].contains(sums))
        let planeRows = String(cString: imagepipe_filter_plane_row_chosen())
        #expect(["avx2", "ssse3", "portable"].contains(rows))
        #expect(["avx2", "portable"].contains(planeRows))
        #if arch(x86_64)
        #expect(sums != "portable" && rows != "portable")
        #endif
    }

    private func withPointers<T>(_ rows: [[UInt8]], _ body: ([UnsafePointer<UInt8>?]) -> T) -> T {
        var pointers: [UnsafePointer<UInt8>?] = []
        func nest(_ index: Int) -> T {
            guard index < rows.count else { return body(pointers) }
            return rows[index].withUnsafeBufferPointer { buffer in
                pointers.append(buffer.baseAddress)
                return nest(index + 1)
            }
        }
        return nest(0)
    }
}
