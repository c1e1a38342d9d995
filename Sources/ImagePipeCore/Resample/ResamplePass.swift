/// One band of output rows of a resampling, with its own buffers (so bands run in parallel).
///
/// Pixels are `SIMD4<Float>`: colour weighted by alpha, then alpha (1 for RGB pictures), each
/// 0…1. Rows come in from the source (box-averaged when the axis pre-shrinks), go through the
/// row weights into a ring of `taps` filtered rows, and each output row is the column weights
/// applied to the ring's rows.
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

    init(image: Image, top: Int = 0, x: ResampleAxis, y: ResampleAxis, linearLight: Bool) {
        self.image = image
        self.top = top
        self.x = x
        self.y = y
        self.linearLight = linearLight
        toLinear = linearLight ? SRGBTransfer.toLinear : (0..<256).map { Float($0) / 255 }
        outputWidth = x.table.count
        input = .allocate(capacity: x.span.count)
        ring = .allocate(capacity: y.table.taps * outputWidth)
        sum = .allocate(capacity: outputWidth)
    }

    func release() {
        input.deallocate()
        ring.deallocate()
        sum.deallocate()
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

    /// A level from 0…255.5 (a half already added): clamped, then truncated, so rounded to
    /// nearest. Lane by lane: the generic SIMD `clamped` is a call per pixel, not two instructions.
    @inline(__always)
    private static func byte(_ value: Float) -> UInt8 { UInt8(truncatingIfNeeded: Int32(min(max(value, 0), 255.5))) }

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
            let c = v * scale + half
            let p = out + i * channels
            p[0] = Self.byte(c[0])
            p[1] = Self.byte(c[1])
            p[2] = Self.byte(c[2])
            if alpha { p[3] = Self.byte(c[3]) }
        }
    }
}
