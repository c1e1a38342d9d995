import ImagePipeCore

/// `Luma`'s tables in place: a pixel's three bytes to its luma as an 8-bit value. A struct
/// with an inlined method rather than a closure, so the per-pixel loop keeps no call.
struct LumaLookup {
    let contributions: UnsafePointer<Float>
    /// The sRGB encoding table when the contributions are linear light; nil for Y′ in levels.
    let encode: UnsafePointer<UInt8>?
    /// The encoding table's last index.
    let top: Float

    @inline(__always)
    func callAsFunction(_ p: UnsafePointer<UInt8>) -> UInt8 {
        let c = contributions
        let sum = c[Int(p[0])] + c[256 + Int(p[1])] + c[512 + Int(p[2])]
        // Rounded to the nearest index as PremultipliedPixels.byte rounds (the low 22 bits of
        // 1.5 × 2²³ + sum), with no trapping conversion.
        if let encode { return encode[Int(truncatingIfNeeded: (min(sum, top) + 12_582_912).bitPattern & 0x3F_FFFF)] }
        return PremultipliedPixels.byte(sum)
    }
}
