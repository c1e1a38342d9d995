import CPixelKernels
#if arch(x86_64)
import _Builtin_intrinsics.intel
#endif
/// One band of output rows of a resampling, with its own buffers (so bands run in parallel).
///
/// Pixels are `SIMD4<Float>`: colour weighted by alpha, then alpha (1 for RGB pictures), each
/// 0…1. Two orders:
/// - *Rows first* (any picture): rows come in from the source (box-averaged when the axis
///   pre-shrinks), go through the row weights into a ring of `taps` filtered rows, and each
///   output row is the column weights applied to the ring's rows.
/// - *Columns first* (an RGB picture shrunk in height, in sRGB, no box): each output row is the
///   column weights applied straight to the source's bytes (`sumSourceRows`), then the row
///   weights (`imagepipe_filter_rgb_row`), both in integers, in C kernels that pick AVX2 where
///   the CPU has it. Shrinking by s, the rows-first order filters every source row across, s
///   times the rows there are to make; this order does the costly part on bytes, 32 at a time.
struct ResamplePass {
    private let image: Image
    /// The source row `image`'s row 0 is (a window of the source's rows: the streamed run's).
    private let top: Int
    private let x: ResampleAxis
    private let y: ResampleAxis
    private let linearLight: Bool
    private let toLinear: [Float]
    /// One working row, over `x.span`.
    private let input: UnsafeMutablePointer<SIMD4<Float>>
    /// `y.table.taps` filtered rows of the output's width.
    private let ring: UnsafeMutablePointer<SIMD4<Float>>
    /// One output row being summed.
    private let sum: UnsafeMutablePointer<SIMD4<Float>>
    private let outputWidth: Int
    /// Whether output rows are made columns first (see above).
    private let columnsFirst: Bool
    /// The integer column sums of one output row, a channel each, over `x.span`.
    private let columnSums: UnsafeMutablePointer<Int32>
    /// The column sums narrowed to 16 bits, with the row kernel's padding.
    private let levels: UnsafeMutablePointer<Int16>
    /// The row weights as the row kernel takes them: each output pixel's first pixel in
    /// `x.span`, its pair count, and its weights two by two.
    private let pairFirst: [Int32]
    private let pairCounts: [Int32]
    private let pairWeights: [Int32]
    private let pairsPerPixel: Int

    init(image: Image, top: Int = 0, x: ResampleAxis, y: ResampleAxis, linearLight: Bool) {
        self.image = image
        self.top = top
        self.x = x
        self.y = y
        self.linearLight = linearLight
        toLinear = linearLight ? SRGBTransfer.toLinear : (0..<256).map { Float($0) / 255 }
        outputWidth = x.table.count
        columnsFirst = !image.hasAlpha && image.channelCount == 3 && !linearLight && x.box == 1 && y.box == 1
            && y.table.count <= y.span.count
        // Each order's buffers; the other's are left empty.
        input = .allocate(capacity: columnsFirst ? 0 : x.span.count)
        ring = .allocate(capacity: columnsFirst ? 0 : y.table.taps * outputWidth)
        sum = .allocate(capacity: columnsFirst ? 0 : outputWidth)
        columnSums = .allocate(capacity: columnsFirst ? x.span.count * 3 : 0)
        let table = x.table
        pairsPerPixel = columnsFirst ? (table.taps + 1) / 2 : 0
        levels = .allocate(capacity: columnsFirst ? x.span.count * 3 + Int(imagepipe_levels_padding(Int32(pairsPerPixel))) : 0)
        pairFirst = columnsFirst ? table.first.map { Int32($0 - x.span.lowerBound) } : []
        pairCounts = columnsFirst ? table.used.map { Int32(($0 + 1) / 2) } : []
        var packed = [Int32](repeating: 0, count: table.count * pairsPerPixel)
        for i in 0..<(columnsFirst ? table.count : 0) {
            for p in 0..<(table.used[i] + 1) / 2 {
                let w0 = table.fixedWeights[i * table.taps + 2 * p]
                let w1 = 2 * p + 1 < table.used[i] ? table.fixedWeights[i * table.taps + 2 * p + 1] : 0
                packed[i * pairsPerPixel + p] = Int32(bitPattern: UInt32(UInt16(bitPattern: w1)) << 16 | UInt32(UInt16(bitPattern: w0)))
            }
        }
        pairWeights = packed
    }

    func release() {
        input.deallocate()
        ring.deallocate()
        sum.deallocate()
        columnSums.deallocate()
        levels.deallocate()
    }

    /// Makes output `rows`, row r into the writer's row `r - firstRow`; once `cancellation` is set
    /// it stops early, leaving the rest unmade (the run that asked throws the picture away).
    /// Each output row is the same arithmetic on the same working rows whatever the band.
    mutating func run(rows: Range<Int>, into writer: PixelWriter, firstRow: Int = 0, cancellation: Cancellation? = nil) {
        var next = Int.min // the next working row the ring lacks
        let taps = y.table.taps
        y.table.weights.withUnsafeBufferPointer { weights in
            for row in rows {
                if row & 15 == 0, cancellation?.isCancelled == true { return }
                if columnsFirst {
                    sumSourceRows(of: row)
                    filterSums(into: writer.row(row - firstRow))
                    continue
                }
                let first = y.table.first[row], used = y.table.used[row]
                next = max(next, first)
                while next < first + used {
                    filterRow(next, into: ring + (next % taps) * outputWidth)
                    next += 1
                }
                sumColumns(used: used, weights: weights.baseAddress! + row * taps) { k in ring + ((first + k) % taps) * outputWidth }
                store(writer.row(row - firstRow))
            }
        }
    }

    /// One output row into `sum`: the `used` filtered rows `row(k)` weighted by `weights[k]`.
    /// Four pixels at a time, each summed over every row in a register: `sum` is written once
    /// per pixel, not once per row, and the four sums do not wait on each other.
    @inline(__always)
    private func sumColumns(used: Int, weights: UnsafePointer<Float>, row: (Int) -> UnsafeMutablePointer<SIMD4<Float>>) {
        withUnsafeTemporaryAllocation(of: UnsafeMutablePointer<SIMD4<Float>>.self, capacity: used) { rows in
            for k in 0..<used { rows[k] = row(k) }
            var i = 0
            while i + 4 <= outputWidth {
                var a0 = SIMD4<Float>.zero, a1 = a0, a2 = a0, a3 = a0
                for k in 0..<used {
                    let w = SIMD4<Float>(repeating: weights[k]), source = rows[k] + i
                    a0 += source[0] * w
                    a1 += source[1] * w
                    a2 += source[2] * w
                    a3 += source[3] * w
                }
                sum[i] = a0
                sum[i + 1] = a1
                sum[i + 2] = a2
                sum[i + 3] = a3
                i += 4
            }
            while i < outputWidth {
                var a = SIMD4<Float>.zero
                for k in 0..<used { a += rows[k][i] * SIMD4(repeating: weights[k]) }
                sum[i] = a
                i += 1
            }
        }
    }

    /// Working row `index` through the row weights into `target` (the output's width).
    private func filterRow(_ index: Int, into target: UnsafeMutablePointer<SIMD4<Float>>) {
        loadRow(index)
        let taps = x.table.taps, low = x.span.lowerBound
        x.table.weights.withUnsafeBufferPointer { weights in
            x.table.first.withUnsafeBufferPointer { firsts in
                x.table.used.withUnsafeBufferPointer { useds in
                    for i in 0..<outputWidth {
                        let from = input + (firsts[i] - low)
                        let w = weights.baseAddress! + i * taps
                        // Four partial sums, so that each addition need not wait for the one
                        // before (a single chain is bound by the adder's latency, not its rate).
                        var a0 = SIMD4<Float>.zero, a1 = a0, a2 = a0, a3 = a0
                        let used = useds[i]
                        var k = 0
                        while k + 4 <= used {
                            a0 += from[k] * SIMD4(repeating: w[k])
                            a1 += from[k + 1] * SIMD4(repeating: w[k + 1])
                            a2 += from[k + 2] * SIMD4(repeating: w[k + 2])
                            a3 += from[k + 3] * SIMD4(repeating: w[k + 3])
                            k += 4
                        }
                        while k < used {
                            a0 += from[k] * SIMD4(repeating: w[k])
                            k += 1
                        }
                        target[i] = (a0 + a1) + (a2 + a3)
                    }
                }
            }
        }
    }

    /// Output row `row`'s column weights applied to the source's RGB bytes across `x.span`, into
    /// `columnSums`: integer sums of the bytes times the 14-bit weights, two rows at a time
    /// (`imagepipe_weighted_row_sums`), exact but for the weights' rounding (`WeightTable.fixedWeights`).
    private func sumSourceRows(of row: Int) {
        let first = y.table.first[row], used = y.table.used[row], pairs = (used + 1) / 2
        let bytes = x.span.count * 3, start = (x.origin + x.span.lowerBound) * 3
        y.table.fixedWeights.withUnsafeBufferPointer { fixed in
            withUnsafeTemporaryAllocation(of: UnsafePointer<UInt8>?.self, capacity: 2 * pairs) { sources in
                withUnsafeTemporaryAllocation(of: Int16.self, capacity: 2 * pairs) { weights in
                    // An odd row count pairs the last row with itself at weight 0.
                    for k in 0..<(2 * pairs) {
                        sources[k] = UnsafePointer(image.rowStart(y.sources(of: first + min(k, used - 1)).lowerBound - top) + start)
                        weights[k] = k < used ? fixed[row * y.table.taps + k] : 0
                    }
                    imagepipe_weighted_row_sums(sources.baseAddress, weights.baseAddress, Int32(pairs), Int32(bytes), columnSums)
                }
            }
        }
    }

    /// The column sums through the row weights into the output row's RGB bytes.
    private func filterSums(into target: UnsafeMutableBufferPointer<UInt8>) {
        pairFirst.withUnsafeBufferPointer { first in
            pairCounts.withUnsafeBufferPointer { counts in
                pairWeights.withUnsafeBufferPointer { weights in
                    var table = imagepipe_row_weights(outputPixels: Int32(outputWidth), pairsPerPixel: Int32(pairsPerPixel),
                                                      first: first.baseAddress, pairs: counts.baseAddress, pairWeights: weights.baseAddress)
                    imagepipe_filter_rgb_row(columnSums, Int32(x.span.count), levels, &table, target.baseAddress)
                }
            }
        }
    }

    /// Working row `index` over `x.span`, as premultiplied floats, into `input`.
    private func loadRow(_ index: Int) {
        let rows = y.sources(of: index)
        let channels = image.channelCount, alpha = image.hasAlpha
        let span = x.span, count = span.count
        toLinear.withUnsafeBufferPointer { lut in
            if x.box == 1 && rows.count == 1 {
                let source = image.rowStart(rows.lowerBound - top) + (x.origin + span.lowerBound) * channels
                for i in 0..<count { input[i] = Self.pixel(source + i * channels, alpha: alpha, lut) }
                return
            }
            input.initialize(repeating: .zero, count: count)
            for sourceRow in rows {
                let start = image.rowStart(sourceRow - top)
                for i in 0..<count {
                    var acc = SIMD4<Float>.zero
                    for column in x.sources(of: span.lowerBound + i) {
                        acc += Self.pixel(start + column * channels, alpha: alpha, lut)
                    }
                    input[i] += acc
                }
            }
            for i in 0..<count {
                let area = Float(rows.count * x.sources(of: span.lowerBound + i).count)
                input[i] /= SIMD4(repeating: area)
            }
        }
    }

    /// Levels from 0…255.5 (a half already added): clamped, then truncated, so rounded to
    /// nearest. The clamp is two vector compares (NaN goes to 0); the truncation is SSE2's
    /// `cvttps2dq` where there is one, since Swift's own float-to-integer conversions check each
    /// lane's range and the SIMD one is generic, each many times slower.
    @inline(__always)
    private static func levels(_ value: SIMD4<Float>) -> SIMD4<Int32> {
        let clamped = value.replacing(with: 0, where: .!(value .>= 0)).replacing(with: 255.5, where: value .> 255.5)
        #if arch(x86_64)
        return unsafeBitCast(_mm_cvttps_epi32(clamped), to: SIMD4<Int32>.self)
        #else
        return SIMD4(Int32(clamped[0]), Int32(clamped[1]), Int32(clamped[2]), Int32(clamped[3]))
        #endif
    }

    @inline(__always)
    private static func pixel(_ p: UnsafePointer<UInt8>, alpha: Bool, _ lut: UnsafeBufferPointer<Float>) -> SIMD4<Float> {
        guard alpha else { return SIMD4(lut[Int(p[0])], lut[Int(p[1])], lut[Int(p[2])], 1) }
        let a = Float(p[3]) * (1 / 255)
        return SIMD4(lut[Int(p[0])] * a, lut[Int(p[1])] * a, lut[Int(p[2])] * a, a)
    }

    /// `sum` to 8-bit pixels: alpha divided back out, the transfer curve put back, rounded to
    /// nearest and clamped (kernels with negative lobes overshoot).
    private func store(_ target: UnsafeMutableBufferPointer<UInt8>) {
        let alpha = image.hasAlpha, channels = alpha ? 4 : 3
        let out = target.baseAddress!
        let half = SIMD4<Float>(repeating: 0.5)
        let scale = SIMD4<Float>(repeating: 255)
        if linearLight {
            let steps = Float(SRGBTransfer.encodeSteps)
            SRGBTransfer.fromLinear.withUnsafeBufferPointer { encode in
                for i in 0..<outputWidth {
                    var v = sum[i]
                    // Divide by the filtered alpha itself (it may overshoot 1), then clamp both.
                    let a = min(max(v[3], 0), 1)
                    if alpha { v = v[3] > 0 ? v / SIMD4(v[3], v[3], v[3], 1) : .zero }
                    let c = v.clamped(lowerBound: .zero, upperBound: .one) * steps + half
                    let p = out + i * channels
                    p[0] = encode[Int(c[0])]
                    p[1] = encode[Int(c[1])]
                    p[2] = encode[Int(c[2])]
                    if alpha { p[3] = UInt8(truncatingIfNeeded: Int32(a * 255 + 0.5)) }
                }
            }
            return
        }
        for i in 0..<outputWidth {
            var v = sum[i]
            if alpha {
                // Divide by the filtered alpha itself (it may overshoot 1), then clamp both.
                let a = v[3]
                v = a > 0 ? v / SIMD4(a, a, a, 1) : .zero
                v[3] = a
            }
            // Non-negative, so truncating after adding a half rounds to nearest (a plain
            // conversion per lane: SIMD's generic rounding conversion is many times slower).
            let c = Self.levels(v * scale + half)
            let p = out + i * channels
            p[0] = UInt8(truncatingIfNeeded: c[0])
            p[1] = UInt8(truncatingIfNeeded: c[1])
            p[2] = UInt8(truncatingIfNeeded: c[2])
            if alpha { p[3] = UInt8(truncatingIfNeeded: c[3]) }
        }
    }
}
