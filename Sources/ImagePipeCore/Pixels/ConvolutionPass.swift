/// One tile of a `Convolution` — a band of output rows across a strip of columns — with its own
/// buffers (so bands run in parallel).
///
/// Source pixels of the strip, widened by the horizontal radius on each side (the border pixel
/// repeated beyond the picture: clamped edges), are loaded premultiplied into a padded buffer.
/// For a separable kernel each row is then filtered across into a ring of filtered rows; for a
/// full kernel the ring holds the padded rows themselves. Each output row sums the ring's rows
/// under the vertical taps, clamped at the top and bottom. The ring has one slot per distinct
/// row the taps can reach (at most the picture's height), keyed by the row's index modulo its
/// size.
///
/// Why strips: a ring as wide as a big photo (19 rows × 5640 px × 16 bytes) does not fit in a
/// core's cache, and the vertical sum then waits on memory; a strip's ring does.
///
/// An RGB picture (no alpha) under a symmetric separable kernel (a Gaussian) is filtered as
/// flat rows of R, G, B floats instead, four floats a vector whatever pixel they belong to
/// (across, a tap k pixels away is 3k floats away): no vector lane is spent on an alpha that
/// is always 1, a quarter of both passes' work and of the ring. The sums are the same, in the
/// same order, so the pixels are too; each output row is spread back into `SIMD4` pixels.
struct ConvolutionPass {
    private let image: Image
    private let taps: Convolution.Taps
    private let columns: Range<Int>
    private let width: Int
    private let rx: Int
    private let ry: Int
    private let ringSize: Int
    /// The width of a ring row: the padded width for a full kernel, else the strip's.
    private let ringStride: Int
    private let padded: UnsafeMutablePointer<SIMD4<Float>>
    private let ring: UnsafeMutablePointer<SIMD4<Float>>
    private let output: UnsafeMutablePointer<SIMD4<Float>>
    /// The vertical taps' row pointers for the current output row.
    private let rows: UnsafeMutablePointer<UnsafePointer<SIMD4<Float>>>
    private let symmetric: (horizontal: Bool, vertical: Bool)
    /// RGB as flat floats (see above); the ring's rows then hold `ringStride` vectors of floats.
    private let flat: Bool
    /// For `flat`: the strip's source row as floats, widened by `rx` pixels each side, plus a
    /// vector of slack for the last vector's reads.
    private let paddedFloats: UnsafeMutablePointer<Float>
    /// For `flat`: the vertical sum, before it is spread into pixels.
    private let flatOutput: UnsafeMutablePointer<SIMD4<Float>>

    init(image: Image, taps: Convolution.Taps, columns: Range<Int>) {
        self.image = image
        self.taps = taps
        self.columns = columns
        width = columns.count
        switch taps {
        case let .separable(horizontal, vertical):
            rx = horizontal.radius
            ry = vertical.radius
            symmetric = (horizontal.isSymmetric, vertical.isSymmetric)
            flat = image.channelCount == 3 && symmetric.horizontal && symmetric.vertical
            ringStride = flat ? (3 * width + 3) / 4 : width
        case let .full(w, h, _):
            rx = w / 2
            ry = h / 2
            ringStride = width + 2 * (w / 2)
            symmetric = (false, false)
            flat = false
        }
        ringSize = min(2 * ry + 1, image.height)
        padded = .allocate(capacity: width + 2 * rx)
        ring = .allocate(capacity: ringSize * ringStride)
        output = .allocate(capacity: width)
        rows = .allocate(capacity: 2 * ry + 1)
        paddedFloats = .allocate(capacity: flat ? 3 * (width + 2 * rx) + 4 : 0)
        paddedFloats.initialize(repeating: 0, count: flat ? 3 * (width + 2 * rx) + 4 : 0)
        // One vector more than the sums fill: the last pixel's unaligned load reaches 4 bytes
        // past them when 3 × width is a whole number of vectors.
        flatOutput = .allocate(capacity: flat ? ringStride + 1 : 0)
        flatOutput.initialize(repeating: .zero, count: flat ? ringStride + 1 : 0)
    }

    func release() {
        padded.deallocate()
        ring.deallocate()
        output.deallocate()
        rows.deallocate()
        paddedFloats.deallocate()
        flatOutput.deallocate()
    }

    /// Output rows `band` of the strip; `finish` gets each row's index and filtered pixels.
    /// Once `cancellation` is set it stops at the next row, leaving the rest unmade (the run
    /// that asked throws the picture away): a wide kernel's band is seconds of work.
    func run(rows band: Range<Int>, cancellation: Cancellation? = nil, finish: (Int, UnsafePointer<SIMD4<Float>>) -> Void) {
        let height = image.height
        var next = 0 // the next source row the ring lacks
        for y in band {
            if cancellation?.isCancelled == true { return }
            let low = max(0, y - ry), high = min(height - 1, y + ry)
            next = max(next, low)
            while next <= high {
                fill(row: next, into: ring + (next % ringSize) * ringStride)
                next += 1
            }
            for k in 0...(2 * ry) {
                let source = min(max(y + k - ry, 0), height - 1)
                rows[k] = UnsafePointer(ring + (source % ringSize) * ringStride)
            }
            switch taps {
            case let .separable(_, vertical) where flat:
                vertical.weights.withUnsafeBufferPointer { sumVerticallyFlat($0.baseAddress!) }
            case let .separable(_, vertical):
                vertical.weights.withUnsafeBufferPointer { sumVertically($0.baseAddress!) }
            case let .full(w, h, weights):
                weights.withUnsafeBufferPointer { sumFull(width: w, height: h, $0.baseAddress!) }
            }
            finish(y, UnsafePointer(output))
        }
    }

    /// Source row `index` into the ring slot `target`: padded, and filtered across when the
    /// kernel is separable.
    private func fill(row index: Int, into target: UnsafeMutablePointer<SIMD4<Float>>) {
        switch taps {
        case let .separable(horizontal, _) where flat:
            loadFloats(row: index)
            horizontal.weights.withUnsafeBufferPointer { filterAcrossFlat($0.baseAddress!, into: target) }
        case let .separable(horizontal, _):
            load(row: index, into: padded)
            horizontal.weights.withUnsafeBufferPointer { filterAcross($0.baseAddress!, from: padded + rx, into: target) }
        case .full:
            load(row: index, into: target)
        }
    }

    /// The strip's source row premultiplied into `target`, widened by `rx` pixels each side:
    /// real neighbours where the picture has them, copies of its border pixels beyond.
    private func load(row index: Int, into target: UnsafeMutablePointer<SIMD4<Float>>) {
        let channels = image.channelCount
        let first = columns.lowerBound - rx, end = columns.upperBound + rx
        let low = max(0, first), high = min(image.width, end)
        PremultipliedPixels.load(image.rowStart(index) + low * channels, channels: channels, count: high - low,
                                 into: target + (low - first))
        let left = target[low - first], right = target[high - 1 - first]
        for i in 0..<(low - first) { target[i] = left }
        for i in (high - first)..<(end - first) { target[i] = right }
    }

    /// For `flat`: the strip's source row into `paddedFloats` as R, G, B floats 0…1, widened by
    /// `rx` pixels each side with copies of the border pixels.
    private func loadFloats(row index: Int) {
        let first = columns.lowerBound - rx, end = columns.upperBound + rx
        let low = max(0, first), high = min(image.width, end)
        let source = image.rowStart(index) + low * 3, target = paddedFloats + (low - first) * 3
        PremultipliedPixels.unit.withUnsafeBufferPointer { lut in
            let table = lut.baseAddress!
            for i in 0..<((high - low) * 3) { target[i] = table[Int(source[i])] }
        }
        let left = paddedFloats + (low - first) * 3, right = paddedFloats + (high - 1 - first) * 3
        for i in 0..<(low - first) { (paddedFloats + i * 3).update(from: left, count: 3) }
        for i in (high - first)..<(end - first) { (paddedFloats + i * 3).update(from: right, count: 3) }
    }

    /// For `flat`: `paddedFloats` through the symmetric horizontal kernel `w` into a ring row of
    /// `ringStride` float vectors (a tap k pixels away is 3k floats away; the vectors need not
    /// start on a pixel).
    private func filterAcrossFlat(_ w: UnsafePointer<Float>, into target: UnsafeMutablePointer<SIMD4<Float>>) {
        let center = UnsafeRawPointer(paddedFloats + 3 * rx), r = rx, count = ringStride
        let w = w + r // w[k] for k in -r...r
        // A tap k pixels away is 12k bytes away; offsets wrap-free by construction (within the
        // padded row), so the arithmetic is unchecked.
        @inline(__always) func load(_ base: UnsafeRawPointer, _ offset: Int) -> SIMD4<Float> {
            base.loadUnaligned(fromByteOffset: offset, as: SIMD4<Float>.self)
        }
        // As `symmetricSum`: four vectors at a time, each with its own accumulator.
        let middle = SIMD4(repeating: w[0])
        var i = 0
        while i &+ 4 <= count {
            let o = i &* 16
            var s0 = load(center, o) * middle, s1 = load(center, o &+ 16) * middle
            var s2 = load(center, o &+ 32) * middle, s3 = load(center, o &+ 48) * middle
            var k = 1
            while k <= r {
                let weight = SIMD4(repeating: w[k]), d = k &* 12
                let a = center - d, b = center + d
                s0 += (load(a, o) + load(b, o)) * weight
                s1 += (load(a, o &+ 16) + load(b, o &+ 16)) * weight
                s2 += (load(a, o &+ 32) + load(b, o &+ 32)) * weight
                s3 += (load(a, o &+ 48) + load(b, o &+ 48)) * weight
                k &+= 1
            }
            target[i] = s0
            target[i &+ 1] = s1
            target[i &+ 2] = s2
            target[i &+ 3] = s3
            i &+= 4
        }
        while i < count {
            let o = i &* 16
            var sum = load(center, o) * middle
            var k = 1
            while k <= r {
                let d = k &* 12
                sum += (load(center - d, o) + load(center + d, o)) * SIMD4(repeating: w[k])
                k &+= 1
            }
            target[i] = sum
            i &+= 1
        }
    }

    /// For `flat`: the output row from the ring's float rows, spread into `SIMD4` pixels
    /// (alpha 1).
    private func sumVerticallyFlat(_ w: UnsafePointer<Float>) {
        let r = ry, rows = self.rows
        Self.symmetricSum(count: ringStride, radius: r, weights: w + r, into: flatOutput) { k in (rows[r - k], rows[r + k]) }
        // Each pixel's three floats as one unaligned vector load (its fourth lane, the next
        // pixel's red or the row's slack, replaced by alpha 1).
        let sums = UnsafeRawPointer(flatOutput), output = self.output
        for i in 0..<width {
            var pixel = sums.loadUnaligned(fromByteOffset: i &* 12, as: SIMD4<Float>.self)
            pixel[3] = 1
            output[i] = pixel
        }
    }

    /// `center` (a padded row's first pixel of the strip) through the horizontal kernel `w`.
    private func filterAcross(_ w: UnsafePointer<Float>, from center: UnsafeMutablePointer<SIMD4<Float>>,
                              into target: UnsafeMutablePointer<SIMD4<Float>>) {
        let r = rx, width = self.width
        let w = w + r // w[k] for k in -r...r
        if symmetric.horizontal {
            Self.symmetricSum(count: width, radius: r, weights: w, into: target) { k in
                (UnsafePointer(center - k), UnsafePointer(center + k))
            }
        } else {
            target.update(repeating: .zero, count: width)
            for k in -r...r {
                let weight = SIMD4(repeating: w[k]), from = center + k
                for i in 0..<width { target[i] += from[i] * weight }
            }
        }
    }

    /// target[i] = Σ over k in 0...radius of (a_k[i] + b_k[i]) · w[k] (a_0 = b_0 counted once),
    /// where `sources(k)` gives a_k and b_k.
    ///
    /// Four pixels at a time, each with its own accumulator held in registers across the taps:
    /// one accumulator would wait on every addition's latency in turn, and summing tap by tap
    /// into memory would load and store the target once per tap.
    @inline(__always)
    private static func symmetricSum(count: Int, radius: Int, weights w: UnsafePointer<Float>,
                                     into target: UnsafeMutablePointer<SIMD4<Float>>,
                                     _ sources: (Int) -> (UnsafePointer<SIMD4<Float>>, UnsafePointer<SIMD4<Float>>)) {
        let middle = SIMD4(repeating: w[0]), (center, _) = sources(0)
        var i = 0
        while i + 4 <= count {
            var s0 = center[i] * middle, s1 = center[i + 1] * middle
            var s2 = center[i + 2] * middle, s3 = center[i + 3] * middle
            var k = 1
            while k <= radius {
                let (a, b) = sources(k), weight = SIMD4(repeating: w[k])
                s0 += (a[i] + b[i]) * weight
                s1 += (a[i + 1] + b[i + 1]) * weight
                s2 += (a[i + 2] + b[i + 2]) * weight
                s3 += (a[i + 3] + b[i + 3]) * weight
                k += 1
            }
            target[i] = s0
            target[i + 1] = s1
            target[i + 2] = s2
            target[i + 3] = s3
            i += 4
        }
        while i < count {
            var sum = center[i] * middle
            var k = 1
            while k <= radius {
                let (a, b) = sources(k)
                sum += (a[i] + b[i]) * SIMD4(repeating: w[k])
                k += 1
            }
            target[i] = sum
            i += 1
        }
    }

    /// The output row from the ring's filtered rows under the vertical kernel `w`.
    private func sumVertically(_ w: UnsafePointer<Float>) {
        let r = ry, width = self.width, rows = self.rows, output = self.output
        if symmetric.vertical {
            Self.symmetricSum(count: width, radius: r, weights: w + r, into: output) { k in (rows[r - k], rows[r + k]) }
        } else {
            output.update(repeating: .zero, count: width)
            for k in 0...(2 * r) {
                let row = rows[k], weight = SIMD4(repeating: w[k])
                for i in 0..<width { output[i] += row[i] * weight }
            }
        }
    }

    /// The output row from the ring's padded rows under a full 2-D kernel.
    private func sumFull(width kw: Int, height kh: Int, _ weights: UnsafePointer<Float>) {
        let width = self.width, rows = self.rows, output = self.output
        output.update(repeating: .zero, count: width)
        for ky in 0..<kh {
            let row = rows[ky]
            for kx in 0..<kw {
                let weight = weights[ky * kw + kx]
                if weight == 0 { continue }
                let w = SIMD4(repeating: weight), from = row + kx
                for i in 0..<width { output[i] += from[i] * w }
            }
        }
    }
}
