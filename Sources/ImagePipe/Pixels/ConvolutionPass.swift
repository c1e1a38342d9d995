/// One band of output rows of a `Convolution`, with its own buffers (so bands run in parallel).
///
/// Source rows are loaded premultiplied into a buffer padded by the horizontal radius on each
/// side (the border pixel repeated: clamped edges). For a separable kernel each row is then
/// filtered across into a ring of filtered rows; for a full kernel the ring holds the padded
/// rows themselves. Each output row sums the ring's rows under the vertical taps, clamped at the
/// top and bottom. The ring has one slot per distinct row the taps can reach (at most the
/// picture's height), keyed by the row's index modulo its size.
struct ConvolutionPass {
    private let image: Image
    private let taps: Convolution.Taps
    private let width: Int
    private let rx: Int
    private let ry: Int
    private let ringSize: Int
    /// The width of a ring row: the padded width for a full kernel, else the picture's.
    private let ringStride: Int
    private let padded: UnsafeMutablePointer<SIMD4<Float>>
    private let ring: UnsafeMutablePointer<SIMD4<Float>>
    private let output: UnsafeMutablePointer<SIMD4<Float>>
    /// The vertical taps' row pointers for the current output row.
    private let rows: UnsafeMutablePointer<UnsafePointer<SIMD4<Float>>>

    init(image: Image, taps: Convolution.Taps) {
        self.image = image
        self.taps = taps
        width = image.width
        switch taps {
        case let .separable(horizontal, vertical):
            rx = horizontal.radius
            ry = vertical.radius
            ringStride = width
        case let .full(w, h, _):
            rx = w / 2
            ry = h / 2
            ringStride = width + 2 * (w / 2)
        }
        ringSize = min(2 * ry + 1, image.height)
        padded = .allocate(capacity: width + 2 * rx)
        ring = .allocate(capacity: ringSize * ringStride)
        output = .allocate(capacity: width)
        rows = .allocate(capacity: 2 * ry + 1)
    }

    func release() {
        padded.deallocate()
        ring.deallocate()
        output.deallocate()
        rows.deallocate()
    }

    func run(rows band: Range<Int>, finish: (Int, UnsafePointer<SIMD4<Float>>) -> Void) {
        let height = image.height
        var next = 0 // the next source row the ring lacks
        for y in band {
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
            case let .separable(_, vertical): sumVertically(vertical)
            case let .full(w, h, weights): sumFull(width: w, height: h, weights)
            }
            finish(y, UnsafePointer(output))
        }
    }

    /// Source row `index` into the ring slot `target`: padded, and filtered across when the
    /// kernel is separable.
    private func fill(row index: Int, into target: UnsafeMutablePointer<SIMD4<Float>>) {
        let channels = image.channelCount
        switch taps {
        case let .separable(horizontal, _):
            load(row: index, channels: channels, into: padded)
            filterAcross(horizontal, from: padded + rx, into: target)
        case .full:
            load(row: index, channels: channels, into: target)
        }
    }

    /// A source row premultiplied into `target`, with `rx` copies of the border pixels on
    /// each side.
    private func load(row index: Int, channels: Int, into target: UnsafeMutablePointer<SIMD4<Float>>) {
        PremultipliedPixels.load(image.rowStart(index), channels: channels, count: width, into: target + rx)
        let first = target[rx], last = target[rx + width - 1]
        for i in 0..<rx {
            target[i] = first
            target[rx + width + i] = last
        }
    }

    /// `center` (a padded row's first real pixel) through the horizontal kernel.
    private func filterAcross(_ kernel: ConvolutionKernel, from center: UnsafeMutablePointer<SIMD4<Float>>,
                              into target: UnsafeMutablePointer<SIMD4<Float>>) {
        let r = kernel.radius, width = self.width
        kernel.weights.withUnsafeBufferPointer { buffer in
            let w = buffer.baseAddress! + r // w[k] for k in -r...r
            if kernel.isSymmetric {
                let middle = SIMD4(repeating: w[0])
                for i in 0..<width {
                    let p = center + i
                    var acc = p[0] * middle
                    var k = 1
                    while k <= r {
                        acc += (p[-k] + p[k]) * SIMD4(repeating: w[k])
                        k += 1
                    }
                    target[i] = acc
                }
            } else {
                for i in 0..<width {
                    let p = center + i
                    var acc = SIMD4<Float>.zero
                    var k = -r
                    while k <= r {
                        acc += p[k] * SIMD4(repeating: w[k])
                        k += 1
                    }
                    target[i] = acc
                }
            }
        }
    }

    /// The output row from the ring's filtered rows under the vertical kernel.
    private func sumVertically(_ kernel: ConvolutionKernel) {
        let r = kernel.radius, width = self.width, rows = self.rows
        kernel.weights.withUnsafeBufferPointer { buffer in
            let w = buffer.baseAddress!
            if kernel.isSymmetric {
                let middle = SIMD4(repeating: w[r]), center = rows[r]
                for i in 0..<width { output[i] = center[i] * middle }
                // Two rows at a time: the pair shares a weight.
                var k = 1
                while k <= r {
                    let above = rows[r - k], below = rows[r + k], weight = SIMD4(repeating: w[r + k])
                    for i in 0..<width { output[i] += (above[i] + below[i]) * weight }
                    k += 1
                }
            } else {
                output.update(repeating: .zero, count: width)
                for k in 0...(2 * r) {
                    let row = rows[k], weight = SIMD4(repeating: w[k])
                    for i in 0..<width { output[i] += row[i] * weight }
                }
            }
        }
    }

    /// The output row from the ring's padded rows under a full 2-D kernel.
    private func sumFull(width kw: Int, height kh: Int, _ weights: [Float]) {
        let width = self.width, rows = self.rows
        output.update(repeating: .zero, count: width)
        weights.withUnsafeBufferPointer { buffer in
            for ky in 0..<kh {
                let row = rows[ky]
                for kx in 0..<kw {
                    let weight = buffer[ky * kw + kx]
                    if weight == 0 { continue }
                    let w = SIMD4(repeating: weight), from = row + kx
                    for i in 0..<width { output[i] += from[i] * w }
                }
            }
        }
    }
}
