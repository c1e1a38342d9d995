#if canImport(Glibc)
import Glibc
#endif

/// CIE L*a*b* (D65 white, as libvips' `colourspace lab`) to and from 8-bit sRGB: the space in
/// which sharp's modulate, normalise and tint work, because its L* follows perceived lightness
/// and its a*, b* hold the hue and chroma apart from it.
public enum CIELab {
    // sRGB primaries with the D65 white, divided by the white (so white is 1, 1, 1).
    private static let xn: Float = 0.950_47, zn: Float = 1.088_83
    private static let toXYZ: (SIMD3<Float>, SIMD3<Float>, SIMD3<Float>) = (
        SIMD3(0.412_456_4, 0.357_576_1, 0.180_437_5) / xn,
        SIMD3(0.212_672_9, 0.715_152_2, 0.072_175_0),
        SIMD3(0.019_333_9, 0.119_192_0, 0.950_304_1) / zn)
    private static let fromXYZ: (SIMD3<Float>, SIMD3<Float>, SIMD3<Float>) = (
        SIMD3(3.240_454_2 * xn, -1.537_138_5, -0.498_531_4 * zn),
        SIMD3(-0.969_266_0 * xn, 1.876_010_8, 0.041_556_0 * zn),
        SIMD3(0.055_643_4 * xn, -0.204_025_9, 1.057_225_2 * zn))
    private static let epsilon: Float = 216.0 / 24389 // (6/29)³
    private static let kappa: Float = 24389.0 / 27

    /// L* (0…100), a*, b* of an sRGB colour given as code values 0…255 (fractions are
    /// rounded to the nearest code value).
    @inlinable
    public static func fromSRGB(_ rgb: SIMD3<Float>) -> SIMD3<Float> {
        fromLinear(SIMD3(linear(rgb[0]), linear(rgb[1]), linear(rgb[2])))
    }

    @usableFromInline static let linearTable = SRGB.toLinear

    @inlinable static func linear(_ code: Float) -> Float {
        linearTable[Int(min(max(code, 0), 255) + 0.5)]
    }

    /// L*a*b* of linear-light RGB (0…1).
    public static func fromLinear(_ rgb: SIMD3<Float>) -> SIMD3<Float> {
        let x = (toXYZ.0 * rgb).sum(), y = (toXYZ.1 * rgb).sum(), z = (toXYZ.2 * rgb).sum()
        let fx = f(x), fy = f(y), fz = f(z)
        return SIMD3(116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz))
    }

    /// Linear-light RGB (not clamped: out-of-gamut colours go below 0 or above 1).
    public static func toLinear(_ lab: SIMD3<Float>) -> SIMD3<Float> {
        let fy = (lab[0] + 16) / 116, fx = fy + lab[1] / 500, fz = fy - lab[2] / 200
        let xyz = SIMD3(inverse(fx), lab[0] > kappa * epsilon ? fy * fy * fy : lab[0] / kappa, inverse(fz))
        return SIMD3((fromXYZ.0 * xyz).sum(), (fromXYZ.1 * xyz).sum(), (fromXYZ.2 * xyz).sum())
    }

    /// sRGB code values (0…255, rounded to whole values) of L*a*b*, clamped into the gamut
    /// channel by channel.
    public static func toSRGB(_ lab: SIMD3<Float>) -> SIMD3<Float> {
        let rgb = toLinear(lab)
        return SIMD3(Float(SRGB.encode(rgb[0])), Float(SRGB.encode(rgb[1])), Float(SRGB.encode(rgb[2])))
    }

    private static func f(_ t: Float) -> Float {
        t > epsilon ? cbrtf(t) : (kappa * t + 16) / 116
    }

    private static func inverse(_ t: Float) -> Float {
        let cube = t * t * t
        return cube > epsilon ? cube : (116 * t - 16) / kappa
    }
}
