extension Image {
    /// A `size` canvas of `background` with `image` placed at `origin` (which may lie partly
    /// outside the canvas). By default the picture's pixels replace the canvas's, keeping their
    /// own alpha (libvips' `embed`); with `blend` they are composited source-over, as a screen
    /// shows them. The canvas has alpha when the background is not opaque, or when an unblended
    /// picture has alpha.
    public static func canvas(size: Size, background: Color, placing image: Image, at origin: (x: Int, y: Int),
                              blend: Bool = false) throws -> Image {
        let hasAlpha = !background.isOpaque || (image.hasAlpha && !blend)
        let outChannels = hasAlpha ? 4 : 3
        let inChannels = image.channelCount
        let back: [UInt8] = [background.red, background.green, background.blue, background.alpha]
        let firstX = max(0, origin.x), lastX = min(size.width, origin.x + image.width)
        let firstY = max(0, origin.y), lastY = min(size.height, origin.y + image.height)
        return try make(size: size, hasAlpha: hasAlpha) { writer in
            for y in 0..<size.height {
                let target = writer.row(y)
                for x in 0..<size.width {
                    for channel in 0..<outChannels { target[x * outChannels + channel] = back[channel] }
                }
                guard y >= firstY, y < lastY, firstX < lastX else { continue }
                let source = image.row(y - origin.y)
                if inChannels == outChannels && (!image.hasAlpha || !blend) {
                    // The same layout and nothing to blend: a plain copy.
                    let start = (firstX - origin.x) * inChannels
                    let count = (lastX - firstX) * inChannels
                    (target.baseAddress! + firstX * outChannels).update(from: source.baseAddress! + start, count: count)
                    continue
                }
                for x in firstX..<lastX where !blend {
                    let s = (x - origin.x) * inChannels, t = x * outChannels
                    for channel in 0..<3 { target[t + channel] = source[s + channel] }
                    if hasAlpha { target[t + 3] = image.hasAlpha ? source[s + 3] : 255 }
                }
                for x in firstX..<lastX where blend {
                    let s = (x - origin.x) * inChannels, t = x * outChannels
                    let alpha = image.hasAlpha ? Int(source[s + 3]) : 255
                    let backAlpha = hasAlpha ? Int(target[t + 3]) : 255
                    // Source-over in straight alpha: out = a·c + (1 − a)·b_a·b, divided by out_a.
                    let outAlpha255 = alpha * 255 + backAlpha * (255 - alpha) // × 255
                    for channel in 0..<3 {
                        let blended = Int(source[s + channel]) * alpha * 255 + Int(target[t + channel]) * backAlpha * (255 - alpha)
                        target[t + channel] = outAlpha255 == 0 ? 0 : UInt8((blended + outAlpha255 / 2) / outAlpha255)
                    }
                    if hasAlpha { target[t + 3] = UInt8((outAlpha255 + 127) / 255) }
                }
            }
        }
    }
}
