#if canImport(Glibc)
import Glibc
#endif
import ImagePipeCore

/// The pixel work of `rotate`: each output pixel's centre is turned back about the pivot and
/// the picture sampled there bilinearly in premultiplied alpha, so pixels outside the picture
/// count as transparent and edges come out anti-aliased without dark fringes.
struct AnchorRotation {
    let image: Image
    let radians: Double
    let pivot: Point
    let background: Color

    func render(size: Size, origin: Point) throws -> Image {
        let hasAlpha = image.hasAlpha || !background.isOpaque
        let outChannels = hasAlpha ? 4 : 3, inChannels = image.channelCount
        let width = image.width, height = image.height
        let cosine = cos(radians), sine = sin(radians)
        let backAlpha = Double(background.alpha) / 255
        let backPremultiplied = [Double(background.red) * backAlpha, Double(background.green) * backAlpha, Double(background.blue) * backAlpha]
        return try Image.make(size: size, hasAlpha: hasAlpha) { writer in
            var sample = [Double](repeating: 0, count: 4)
            for y in 0..<size.height {
                try StageContext.checkCancelled()
                let target = writer.row(y)
                // Output pixel centre in the picture's frame, relative to the pivot.
                let py = origin.y + Double(y) + 0.5 - pivot.y
                for x in 0..<size.width {
                    let px = origin.x + Double(x) + 0.5 - pivot.x
                    // Inverse of the clockwise turn (y down): rotate by −angle.
                    let sx = cosine * px + sine * py + pivot.x - 0.5
                    let sy = -sine * px + cosine * py + pivot.y - 0.5
                    sampleBilinear(x: sx, y: sy, width: width, height: height, channels: inChannels, into: &sample)
                    let alpha = sample[3] + backAlpha * (1 - sample[3])
                    let t = x * outChannels
                    for channel in 0..<3 {
                        let premultiplied = sample[channel] + backPremultiplied[channel] * (1 - sample[3])
                        target[t + channel] = alpha > 0 ? UInt8(min(255, max(0, (premultiplied / alpha).rounded()))) : 0
                    }
                    if hasAlpha { target[t + 3] = UInt8(min(255, (alpha * 255).rounded())) }
                }
            }
        }
    }

    /// Premultiplied RGB (0…255) and alpha (0…1) at a fractional pixel position; neighbours
    /// outside the picture are transparent.
    private func sampleBilinear(x: Double, y: Double, width: Int, height: Int, channels: Int, into result: inout [Double]) {
        result[0] = 0; result[1] = 0; result[2] = 0; result[3] = 0
        let x0 = Int(x.rounded(.down)), y0 = Int(y.rounded(.down))
        guard x0 >= -1, y0 >= -1, x0 < width, y0 < height else { return }
        let fx = x - Double(x0), fy = y - Double(y0)
        for (dy, wy) in [(0, 1 - fy), (1, fy)] {
            let row = y0 + dy
            guard row >= 0, row < height, wy > 0 else { continue }
            let bytes = image.row(row)
            for (dx, wx) in [(0, 1 - fx), (1, fx)] {
                let column = x0 + dx
                guard column >= 0, column < width, wx > 0 else { continue }
                let s = column * channels
                let weight = wx * wy
                let alpha = (channels == 4 ? Double(bytes[s + 3]) / 255 : 1) * weight
                result[0] += Double(bytes[s]) * alpha
                result[1] += Double(bytes[s + 1]) * alpha
                result[2] += Double(bytes[s + 2]) * alpha
                result[3] += alpha
            }
        }
    }
}
