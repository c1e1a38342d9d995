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
///   column weights applied straight to the source's bytes in integers (`sumSourceRows`), then
///   the row weights. Shrinking by s, the rows-first order filters every source row across, s
///   times the rows there are to make; this order does the costly part on bytes, 16 at a time.
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
    private let columnSums: UnsafeMutablePointer<SIMD4<Int32>>

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
        input = .allocate(capacity: x.span.count)
        ring = .allocate(capacity: columnsFirst ? 0 : y.table.taps * outputWidth)
        sum = .allocate(capacity: outputWidth)
        // A channel's sum each, and one past the last pixel's (read, not used, with its three).
        let sumVectors = columnsFirst ? x.span.count * 3 / 4 + 1 : 0
        columnSums = .allocate(capacity: sumVectors)
        columnSums.initialize(repeating: .zero, count: sumVectors)
    }

    func release() {
        input.deallocate()
        ring.deallocate()
        sum.deallocate()
        columnSums.deallocate()
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
                    filterInput(into: sum)
                    store(writer.row(row - firstRow))
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
        filterInput(into: target)
    }

    /// The working row in `input` through the row weights into `target` (the output's width).
    private func filterInput(into target: UnsafeMutablePointer<SIMD4<Float>>) {
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
    /// `input`. Rows go two at a time, 16 bytes across: the bytes of the two rows interleaved and
    /// widened, then each pair times its pair of 14-bit weights and summed in one step (the
    /// shape SSE2's `pmaddwd` is made for, which the compiler emits here), into 32-bit sums kept
    /// in registers over all the rows. Exact but for the weights' rounding (`WeightTable.fixedWeights`).
    private func sumSourceRows(of row: Int) {
        let first = y.table.first[row], used = y.table.used[row], pairs = (used + 1) / 2
        let bytes = x.span.count * 3, start = (x.origin + x.span.lowerBound) * 3
        y.table.fixedWeights.withUnsafeBufferPointer { fixed in
            withUnsafeTemporaryAllocation(of: UnsafePointer<UInt8>.self, capacity: 2 * pairs) { sources in
                withUnsafeTemporaryAllocation(of: SIMD8<Int16>.self, capacity: pairs) { pairWeights in
                    let weights = fixed.baseAddress! + row * y.table.taps
                    // An odd row count pairs the last row with itself at weight 0.
                    for k in 0..<(2 * pairs) {
                        sources[k] = image.rowStart(y.sources(of: first + min(k, used - 1)).lowerBound - top) + start
                    }
                    for p in 0..<pairs {
                        let w0 = weights[2 * p], w1 = 2 * p + 1 < used ? weights[2 * p + 1] : 0
                        pairWeights[p] = SIMD8(w0, w1, w0, w1, w0, w1, w0, w1)
                    }
                    var c = 0
                    while c + 16 <= bytes {
                        var s0 = SIMD4<Int32>.zero, s1 = s0, s2 = s0, s3 = s0
                        for p in 0..<pairs {
                            let a = UnsafeRawPointer(sources[2 * p] + c).loadUnaligned(as: SIMD16<UInt8>.self)
                            let b = UnsafeRawPointer(sources[2 * p + 1] + c).loadUnaligned(as: SIMD16<UInt8>.self)
                            let w = SIMD8<Int32>(truncatingIfNeeded: pairWeights[p])
                            let low = Self.interleave(a.lowHalf, b.lowHalf), high = Self.interleave(a.highHalf, b.highHalf)
                            s0 &+= Self.pairSums(low.lowHalf, w)
                            s1 &+= Self.pairSums(low.highHalf, w)
                            s2 &+= Self.pairSums(high.lowHalf, w)
                            s3 &+= Self.pairSums(high.highHalf, w)
                        }
                        let target = columnSums + c / 4
                        target[0] = s0
                        target[1] = s1
                        target[2] = s2
                        target[3] = s3
                        c += 16
                    }
                    let tail = UnsafeMutableRawPointer(columnSums).assumingMemoryBound(to: Int32.self)
                    while c < bytes {
                        var total: Int32 = 0
                        for k in 0..<used { total &+= Int32(sources[k][c]) &* Int32(weights[k]) }
                        tail[c] = total
                        c += 1
                    }
                }
            }
        }
        // Each pixel's three sums and the next one's first (`columnSums` has room past the last).
        let sums = UnsafeRawPointer(columnSums)
        let scale = SIMD4<Float>(repeating: 1 / Float(255 * WeightTable.fixedOne)), alphaLane = SIMD4<Int32>(0, 0, 0, -1)
        for i in 0..<x.span.count {
            let pixel = Self.floats(sums.loadUnaligned(fromByteOffset: i * 12, as: SIMD4<Int32>.self)) * scale
            input[i] = pixel.replacing(with: 1, where: alphaLane .!= 0)
        }
    }

    /// The bytes of `a` and `b` taken in turn: a0 b0 a1 b1 …
    @inline(__always)
    private static func interleave(_ a: SIMD8<UInt8>, _ b: SIMD8<UInt8>) -> SIMD16<UInt8> {
        SIMD16(a[0], b[0], a[1], b[1], a[2], b[2], a[3], b[3], a[4], b[4], a[5], b[5], a[6], b[6], a[7], b[7])
    }

    /// Each neighbouring pair of `bytes` times its pair of `weights`, summed: four sums.
    @inline(__always)
    private static func pairSums(_ bytes: SIMD8<UInt8>, _ weights: SIMD8<Int32>) -> SIMD4<Int32> {
        let products = SIMD8<Int32>(truncatingIfNeeded: SIMD8<Int16>(truncatingIfNeeded: bytes)) &* weights
        return products.evenHalf &+ products.oddHalf
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

    /// Four 32-bit integers as floats (`cvtdq2ps` where there is one, for the same reason).
    @inline(__always)
    private static func floats(_ value: SIMD4<Int32>) -> SIMD4<Float> {
        #if arch(x86_64)
        return _mm_cvtepi32_ps(unsafeBitCast(value, to: __m128i.self))
        #else
        return SIMD4(Float(value[0]), Float(value[1]), Float(value[2]), Float(value[3]))
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
