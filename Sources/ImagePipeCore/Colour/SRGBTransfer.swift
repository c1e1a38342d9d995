#if canImport(Glibc)
import Glibc
#endif

/// The sRGB transfer curve (IEC 61966-2-1) as tables: 8-bit code values to linear light, and
/// linear light back to 8-bit code values. For work that must happen in linear light, where
/// averaging two intensities gives their physical mean (a black/white checkerboard halves to
/// grey 188, not 128).
enum SRGBTransfer {
    /// Linear light (0…1) of each 8-bit sRGB code value.
    static let toLinear: [Float] = (0..<256).map { Float(decode(Double($0) / 255)) }

    /// Steps of the table from linear light back to code values: fine enough that even the
    /// darkest codes (where the curve is steepest, 12.92 codes per unit) land within 0.05 of
    /// their exact value before rounding.
    static let encodeSteps = 65535

    /// The 8-bit code value, rounded to nearest, of linear light `index / encodeSteps`.
    static let fromLinear: [UInt8] = (0...encodeSteps).map {
        UInt8(min(255, max(0, (encode(Double($0) / Double(encodeSteps)) * 255).rounded())))
    }

    static func decode(_ v: Double) -> Double {
        v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4)
    }

    static func encode(_ v: Double) -> Double {
        v <= 0.0031308 ? v * 12.92 : 1.055 * pow(v, 1 / 2.4) - 0.055
    }
}
