extension Image {
    /// The picture with `top`, `right`, `bottom` and `left` pixels added at its edges, filled as
    /// `mode` says (libvips `embed`). With `.color` the new pixels are `background`, and the
    /// result has alpha when the picture or the colour has; the other modes copy the picture's
    /// own pixels and keep its layout.
    public func extended(top: Int, right: Int, bottom: Int, left: Int, mode: EdgeMode, background: Color = .black) throws -> Image {
        let output = Size(width + left + right, height + top + bottom)
        let outAlpha = hasAlpha || (mode == .color && !background.isOpaque)
        let outChannels = outAlpha ? 4 : 3, inChannels = channelCount
        let back: [UInt8] = [background.red, background.green, background.blue, background.alpha]
        // Which source column (or nil: the colour) each output column shows, worked out once.
        let columns = (0..<output.width).map { mode.source(of: $0 - left, length: width) }
        return try Image.make(size: output, hasAlpha: outAlpha) { writer in
            for y in 0..<output.height {
                let target = writer.row(y).baseAddress!
                guard let sy = mode.source(of: y - top, length: height) else {
                    for x in 0..<output.width {
                        for channel in 0..<outChannels { target[x * outChannels + channel] = back[channel] }
                    }
                    continue
                }
                let source = rowStart(sy)
                if inChannels == outChannels {
                    // The picture's own row in one copy; only the edges go pixel by pixel.
                    (target + left * outChannels).update(from: source, count: width * inChannels)
                }
                for x in 0..<output.width where inChannels != outChannels || x < left || x >= left + width {
                    let t = target + x * outChannels
                    guard let sx = columns[x] else {
                        for channel in 0..<outChannels { t[channel] = back[channel] }
                        continue
                    }
                    let s = source + sx * inChannels
                    t[0] = s[0]; t[1] = s[1]; t[2] = s[2]
                    if outAlpha { t[3] = inChannels == 4 ? s[3] : 255 }
                }
            }
        }
    }
}
