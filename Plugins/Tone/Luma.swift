import ImagePipeCore

/// Rec. 709 luma of 8-bit sRGB pixels, as tables: on linear light (libvips' `colourspace b-w`,
/// hence sharp's `grayscale`: the sRGB curve taken off, Y = 0.2126 R + 0.7152 G + 0.0722 B,
/// the curve put back) or on the encoded values themselves (Y′, as a TV's luma and
/// ImageMagick's `-colorspace Gray` with Rec709Luma).
struct Luma: Sendable {
    /// Each channel's contribution, indexed by `channel * 256 + value`: in steps of the sRGB
    /// encoding table for linear light, else in levels.
    let contributions: [Float]
    let linear: Bool

    init(linear: Bool) {
        self.linear = linear
        let weights: [Float] = [0.2126, 0.7152, 0.0722]
        let steps = Float(SRGB.encodeSteps), toLinear = SRGB.toLinear
        contributions = weights.flatMap { weight in
            (0..<256).map { linear ? weight * toLinear[$0] * steps : weight * Float($0) }
        }
    }

    /// Calls `body` with the tables in place, as a `LumaLookup` from a pixel to its luma.
    func withLookup<R>(_ body: (LumaLookup) throws -> R) rethrows -> R {
        try contributions.withUnsafeBufferPointer { buffer in
            try SRGB.fromLinear.withUnsafeBufferPointer { encode in
                try body(LumaLookup(contributions: buffer.baseAddress!, encode: linear ? encode.baseAddress! : nil,
                                    top: Float(SRGB.encodeSteps)))
            }
        }
    }

    /// Each pixel's color from its luma: `colors` holds R, G, B for each of the 256 levels,
    /// interleaved; alpha is kept. The one pixel loop of grayscale, threshold and tint.
    func map(_ image: Image, colors: [UInt8]) throws -> Image {
        precondition(colors.count == 256 * 3)
        return try colors.withUnsafeBufferPointer { buffer in
            let lookup = buffer.baseAddress!
            return try withLookup { luma in
                try image.mapRows(workPerPixel: 6) { row in
                    let channels = row.sourceChannels
                    var s = row.source, t = row.target
                    for _ in 0..<row.width {
                        let entry = lookup + Int(luma(s)) * 3
                        t[0] = entry[0]
                        t[1] = entry[1]
                        t[2] = entry[2]
                        if channels == 4 { t[3] = s[3] }
                        s += channels
                        t += channels
                    }
                }
            }
        }
    }

    /// The two tables, made once: the stages apply many times a run (a streamed run applies
    /// them to every strip of rows).
    static let linearLight = Luma(linear: true), encoded = Luma(linear: false)

    /// Each gray level as R = G = B, for `map`.
    static let grays: [UInt8] = (0..<256).flatMap { [UInt8($0), UInt8($0), UInt8($0)] }
}
