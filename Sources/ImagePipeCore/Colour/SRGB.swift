/// The sRGB transfer curve for stages: 8-bit code values to linear light and back, through
/// the same tables the resampler uses.
public enum SRGB {
    /// Linear light (0…1) of each 8-bit code value; 256 entries.
    public static var toLinear: [Float] { SRGBTransfer.toLinear }

    /// Linear light (clamped to 0…1) to the nearest 8-bit code value.
    @inline(__always)
    public static func encode(_ linear: Float) -> UInt8 {
        let steps = Float(SRGBTransfer.encodeSteps)
        let index = Int(min(max(linear, 0), 1) * steps + 0.5)
        return SRGBTransfer.fromLinear[index]
    }

    /// Steps of the table `fromLinear` (linear light `i / encodeSteps` at index `i`).
    public static var encodeSteps: Int { SRGBTransfer.encodeSteps }

    /// 8-bit code values of linear light `i / encodeSteps`, rounded to nearest.
    public static var fromLinear: [UInt8] { SRGBTransfer.fromLinear }
}
