#if canImport(Glibc)
import Glibc
#endif
import ImagePipeCore

/// The pixel work of the circular-crop plugin: cutting a circle out, and the even-odd mask
/// with its ring. Colours are straight alpha in and out; blending multiplies by alpha on the
/// way (premultiplied arithmetic) so no dark fringe appears at partly transparent edges.
/// Rows outside the circle's edge band take no per-pixel geometry.
enum CirclePainter {
    /// The picture with everything outside the circle made transparent (stored 0,0,0,0) and the
    /// edge anti-aliased; an RGBA picture keeps its own alpha inside. Always RGBA. `image` may
    /// be a strip whose first row is the picture's row `top`.
    static func cutOut(_ image: Image, top: Int = 0, center: Point, radius: Double) throws -> Image {
        let channels = image.channelCount
        return try Image.make(size: image.size, hasAlpha: true) { writer in
            for y in 0..<image.height {
                try StageContext.checkCancelled()
                let source = image.row(y), target = writer.row(y)
                target.update(repeating: 0)
                let span = CircleSpan(row: top + y, width: image.width, center: center, radius: radius)
                for x in span.touched {
                    let coverage = span.inside.contains(x) ? 1 : span.coverage(x)
                    let s = x * channels, t = x * 4
                    let alpha = (channels == 4 ? Double(source[s + 3]) : 255) * coverage
                    let stored = UInt8(min(255, alpha.rounded()))
                    guard stored > 0 else { continue }
                    target[t] = source[s]
                    target[t + 1] = source[s + 1]
                    target[t + 2] = source[s + 2]
                    target[t + 3] = stored
                }
            }
        }
    }

    /// Seed 000's mask: one path of the picture's rectangle plus the circle, filled even-odd
    /// with `fill`, so the region outside the circle is painted and the inside is untouched.
    /// A fully transparent `fill` cuts the outside away instead of painting nothing. With a
    /// ring, the circle is then stroked with it. `image` may be a strip of the picture whose
    /// first row is the picture's row `top`; `center` is in the picture's coordinates.
    static func mask(_ image: Image, top: Int = 0, center: Point, radius: Double, fill: Color, ring: DashedRing?) throws -> Image {
        let erase = fill.alpha == 0
        let hasAlpha = image.hasAlpha || erase
        let inChannels = image.channelCount, outChannels = hasAlpha ? 4 : 3
        let fillColor = [Double(fill.red), Double(fill.green), Double(fill.blue)]
        let fillAlpha = Double(fill.alpha) / 255
        return try Image.make(size: image.size, hasAlpha: hasAlpha) { writer in
            for y in 0..<image.height {
                try StageContext.checkCancelled()
                let source = image.row(y), target = writer.row(y)
                let span = CircleSpan(row: top + y, width: image.width, center: center, radius: radius)
                for x in 0..<image.width {
                    let s = x * inChannels, t = x * outChannels
                    let alpha = inChannels == 4 ? Double(source[s + 3]) / 255 : 1
                    let outside = span.inside.contains(x) ? 0 : span.touched.contains(x) ? 1 - span.coverage(x) : 1
                    if erase {
                        let kept = alpha * (1 - outside)
                        let stored = UInt8((kept * 255).rounded())
                        for channel in 0..<3 { target[t + channel] = stored == 0 ? 0 : source[s + channel] }
                        target[t + 3] = stored
                        continue
                    }
                    let paint = fillAlpha * outside
                    let outAlpha = paint + alpha * (1 - paint)
                    for channel in 0..<3 {
                        let mixed = fillColor[channel] * paint + Double(source[s + channel]) * alpha * (1 - paint)
                        target[t + channel] = outAlpha == 0 ? 0 : UInt8(min(255, (mixed / outAlpha).rounded()))
                    }
                    if hasAlpha { target[t + 3] = UInt8((outAlpha * 255).rounded()) }
                }
            }
            if let ring { stroke(ring, center: center, radius: radius, on: writer, top: top) }
        }
    }

    /// Paints the dashed ring source-over onto pixels already written, the writer's first row
    /// being the picture's row `top`.
    static func stroke(_ ring: DashedRing, center: Point, radius: Double, on writer: PixelWriter, top: Int) {
        let reach = ring.width / 2 + 1
        let color = [Double(ring.color.red), Double(ring.color.green), Double(ring.color.blue)]
        let ringAlpha = Double(ring.color.alpha) / 255
        let channels = writer.channelCount
        let firstRow = max(top, Int((center.y - radius - reach).rounded(.down)))
        let lastRow = min(top + writer.size.height - 1, Int((center.y + radius + reach).rounded(.up)))
        guard firstRow <= lastRow else { return }
        for y in firstRow...lastRow {
            let target = writer.row(y - top)
            let outer = CircleSpan(row: y, width: writer.size.width, center: center, radius: radius + reach)
            let inner = CircleSpan(row: y, width: writer.size.width, center: center, radius: max(0, radius - reach))
            let dy = Double(y) + 0.5 - center.y
            for x in outer.touched where !inner.inside.contains(x) {
                let dx = Double(x) + 0.5 - center.x
                let paint = ringAlpha * ring.coverage(distance: (dx * dx + dy * dy).squareRoot(), angle: atan2(dy, dx), radius: radius)
                guard paint > 0 else { continue }
                let t = x * channels
                let alpha = channels == 4 ? Double(target[t + 3]) / 255 : 1
                let outAlpha = paint + alpha * (1 - paint)
                for channel in 0..<3 {
                    let mixed = color[channel] * paint + Double(target[t + channel]) * alpha * (1 - paint)
                    target[t + channel] = UInt8(min(255, (mixed / outAlpha).rounded()))
                }
                if channels == 4 { target[t + 3] = UInt8((outAlpha * 255).rounded()) }
            }
        }
    }
}
