/// How an overlay's colour combines with the picture's: Porter-Duff `over`, the separable blend
/// modes of the W3C Compositing and Blending spec (level 1), and the Porter-Duff operators that
/// use the overlay as a mask.
public enum BlendMode: String, CaseIterable, Sendable {
    /// The overlay in front (Porter-Duff source-over): what a watermark is.
    case over
    /// Base × overlay: darkens; white leaves the picture as it is.
    case multiply
    /// 1 − (1 − base)(1 − overlay): lightens; black leaves the picture as it is.
    case screen
    /// Multiply where the base is dark, screen where it is light (hard-light with the layers swapped).
    case overlay
    /// The darker of the two, per channel.
    case darken
    /// The lighter of the two, per channel.
    case lighten
    /// The picture kept where the overlay is opaque (Porter-Duff destination-in): alpha × overlay alpha.
    case destIn = "dest-in"
    /// The picture cut away where the overlay is opaque (Porter-Duff destination-out).
    case destOut = "dest-out"

    /// Whether the overlay's alpha only masks the picture (its colour is unused).
    var isMask: Bool { self == .destIn || self == .destOut }

    /// The separable blend function B(base, overlay) of straight colours in 0…1.
    @inline(__always)
    func blend(_ b: SIMD4<Float>, _ s: SIMD4<Float>) -> SIMD4<Float> {
        switch self {
        case .over, .destIn, .destOut: return s
        case .multiply: return b * s
        case .screen: return b + s - b * s
        case .overlay:
            // HardLight(s, b): multiply(s, 2b) where b ≤ ½, else screen(s, 2b − 1).
            let twice = b + b
            let multiplied = s * twice
            let screened = s + (twice - 1) - s * (twice - 1)
            return multiplied.replacing(with: screened, where: b .> 0.5)
        case .darken: return pointwiseMin(b, s)
        case .lighten: return pointwiseMax(b, s)
        }
    }
}
