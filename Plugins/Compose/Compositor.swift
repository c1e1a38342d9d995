import ImagePipe

/// Composites one picture onto another in premultiplied Float, row by row with raw pointers
/// (`Image.mapRows`' row bands): the pixel loop behind `composite` and `text`. Levels are read
/// and rounded as the framework's filters do (`PremultipliedPixels`).
///
/// Per pixel, with straight colours `Cs`, `Cb` and alphas `αs` (the overlay's alpha × opacity)
/// and `αb`, the W3C compositing formula for a separable blend function `B`:
///
///     co = cs·(1 − αb) + cb·(1 − αs) + αs·αb·B(Cb, Cs)     (premultiplied: cs = αs·Cs)
///     αo = αs + αb·(1 − αs)
///
/// which with `B(Cb, Cs) = Cs` is Porter-Duff source-over. `dest-in` and `dest-out` keep the
/// picture's colour and multiply its alpha by `αs` or `1 − αs`, over the whole picture: where
/// the overlay does not reach, `αs` is 0 (libvips' `composite2` with an embedded overlay).
public enum Compositor {
    /// `base` with `overlay` composited onto it, its top-left corner at `origin` (which may lie
    /// outside), or repeated in both directions from there with `tile`. The result is `base`'s
    /// size; it has alpha when `base` has, or when the blend masks (`dest-in`, `dest-out`).
    /// `bands` fixes how many row bands the work is split into (nil: by size and cores).
    public static func composite(_ overlay: Image, onto base: Image, at origin: (x: Int, y: Int), tile: Bool = false,
                                 blend: BlendMode = .over, opacity: Double = 1, bands: Int? = nil) throws -> Image {
        let outAlpha = base.hasAlpha || blend.isMask
        let width = base.width
        let overlayWidth = overlay.width, overlayHeight = overlay.height
        // Clamped and NaN-free: every later product stays within 0…1.
        let opacity = Float(opacity.isNaN ? 0 : min(1, max(0, opacity)))
        let overlayChannels = overlay.channelCount
        return try PremultipliedPixels.unit.withUnsafeBufferPointer { table in
            let unit = table.baseAddress!
            // The work per pixel is small where the overlay is not: one unit, so that only
            // pictures of a megapixel or more are split across cores.
            return try base.mapRows(hasAlpha: outAlpha, workPerPixel: 1, bands: bands) { row in
                let y = row.y, target = row.target, outChannels = row.targetChannels
                copy(row.source, channels: row.sourceChannels, into: target, channels: outChannels, count: width)
                let overlayRow: Int? = tile ? modulo(y - origin.y, overlayHeight)
                    : (origin.y..<(origin.y + overlayHeight)).contains(y) ? y - origin.y : nil
                let first = tile ? 0 : max(0, origin.x), end = tile ? width : min(width, origin.x + overlayWidth)
                guard let overlayRow, first < end else {
                    if blend == .destIn { clearAlpha(target, from: 0, to: width) }
                    return
                }
                if blend == .destIn {
                    clearAlpha(target, from: 0, to: first)
                    clearAlpha(target, from: end, to: width)
                }
                let over = overlay.row(overlayRow).baseAddress!
                var column = modulo(first - origin.x, overlayWidth)
                for x in first..<end {
                    let s = over + column * overlayChannels, t = target + x * outChannels
                    column += 1
                    if column == overlayWidth { column = 0 }
                    let sa = (overlayChannels == 4 ? unit[Int(s[3])] : 1) * opacity
                    let ba: Float = outChannels == 4 ? unit[Int(t[3])] : 1
                    switch blend {
                    case .destIn:
                        t[3] = PremultipliedPixels.byte(ba * sa * 255)
                    case .destOut:
                        t[3] = PremultipliedPixels.byte(ba * (1 - sa) * 255)
                    default:
                        guard sa > 0 else { continue }
                        let cs = SIMD4<Float>(unit[Int(s[0])], unit[Int(s[1])], unit[Int(s[2])], 0)
                        let cb = SIMD4<Float>(unit[Int(t[0])], unit[Int(t[1])], unit[Int(t[2])], 0)
                        let mixed = blend.blend(cb, cs)
                        let ao = sa + ba * (1 - sa)
                        let co = cs * (sa * (1 - ba)) + cb * (ba * (1 - sa)) + mixed * (sa * ba)
                        let straight = co * (255 / ao)
                        t[0] = PremultipliedPixels.byte(straight[0])
                        t[1] = PremultipliedPixels.byte(straight[1])
                        t[2] = PremultipliedPixels.byte(straight[2])
                        if outChannels == 4 { t[3] = PremultipliedPixels.byte(ao * 255) }
                    }
                }
            }
        }
    }

    /// `n` mod `m` in 0..<m, for negative `n` too.
    @inline(__always) private static func modulo(_ n: Int, _ m: Int) -> Int {
        let r = n % m
        return r < 0 ? r + m : r
    }

    private static func clearAlpha(_ row: UnsafeMutablePointer<UInt8>, from first: Int, to end: Int) {
        guard first < end else { return }
        for x in first..<end { row[x * 4 + 3] = 0 }
    }

    /// A row copied, alpha added (opaque) when the target has it and the source has not.
    private static func copy(_ source: UnsafePointer<UInt8>, channels from: Int, into target: UnsafeMutablePointer<UInt8>,
                             channels to: Int, count: Int) {
        if from == to {
            target.update(from: source, count: count * from)
            return
        }
        for x in 0..<count {
            target[x * 4] = source[x * 3]
            target[x * 4 + 1] = source[x * 3 + 1]
            target[x * 4 + 2] = source[x * 3 + 2]
            target[x * 4 + 3] = 255
        }
    }
}
