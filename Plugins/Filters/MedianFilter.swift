import ImagePipeCore

/// The median of every channel (alpha too, each on its own, as libvips does) over a square
/// window, by Huang's sliding histogram: per row the window's histogram is built once, then each
/// step right removes one column and adds one, and the median moves from where it was. That
/// costs 2·(2r + 1) updates per pixel and channel instead of sorting (2r + 1)² values.
struct MedianFilter {
    let radius: Int
    /// How many row bands to split into; nil chooses by size and cores (`RowBands`).
    var bands: Int? = nil

    func apply(to image: Image) throws -> Image {
        let r = radius, side = 2 * r + 1
        let width = image.width, height = image.height, channels = image.channelCount
        // The median is the value of rank `middle` (0-based) among side² values.
        let middle = side * side / 2
        return try Image.make(size: image.size, hasAlpha: image.hasAlpha) { writer in
            RowBands.run(rows: height, workPerRow: width * 4 * side * channels, bands: bands) { band in
                // One histogram, one window of row pointers and one walk's buffers per band, made
                // once, not per row: each row clears them and walks again.
                let counts = UnsafeMutablePointer<Int32>.allocate(capacity: 256 * channels)
                let rows = UnsafeMutablePointer<UnsafePointer<UInt8>>.allocate(capacity: side)
                defer {
                    counts.deallocate()
                    rows.deallocate()
                }
                var median = [Int](repeating: 0, count: channels), below = [Int](repeating: 0, count: channels)
                func column(_ x: Int, _ delta: Int32) {
                    let offset = min(max(x, 0), width - 1) * channels
                    for i in 0..<side {
                        let source = rows[i]
                        for c in 0..<channels {
                            let v = Int(source[offset + c])
                            counts[c * 256 + v] += delta
                            if v < median[c] { below[c] += Int(delta) }
                        }
                    }
                }
                for y in band {
                    // The window's rows, clamped at the top and bottom.
                    for i in 0..<side { rows[i] = image.row(min(max(y - r + i, 0), height - 1)).baseAddress! }
                    counts.update(repeating: 0, count: 256 * channels)
                    // Each channel's walk starts from 0 with nothing below it; it finds the median.
                    for c in 0..<channels {
                        median[c] = 0
                        below[c] = 0
                    }
                    let target = writer.row(y).baseAddress!
                    for x in -r...r { column(x, 1) }
                    for x in 0..<width {
                        if x > 0 {
                            column(x - r - 1, -1)
                            column(x + r, 1)
                        }
                        for c in 0..<channels {
                            let h = counts + c * 256
                            var m = median[c], lt = below[c]
                            // Invariant sought: lt ≤ middle < lt + h[m], lt = values below m.
                            while lt > middle {
                                m -= 1
                                lt -= Int(h[m])
                            }
                            while lt + Int(h[m]) <= middle {
                                lt += Int(h[m])
                                m += 1
                            }
                            median[c] = m
                            below[c] = lt
                            target[x * channels + c] = UInt8(m)
                        }
                    }
                }
            }
        }
    }
}
