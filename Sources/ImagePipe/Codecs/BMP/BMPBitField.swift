/// One field of a 16- or 32-bit BMP pixel (red, green, blue or alpha), scaled to 8 bits: a
/// field of any width (1 bit of 1-9-2-4, 18 bits of 7-18-7) spans the whole 0–255 range, where
/// shifting alone would leave 5-bit white at 248.
struct BMPBitField {
    let mask: UInt32
    private let shift: UInt32
    private let largest: UInt64

    init(_ mask: UInt32) {
        self.mask = mask
        shift = mask == 0 ? 0 : UInt32(mask.trailingZeroBitCount)
        largest = UInt64(mask >> shift)
    }

    /// The field's value as 0–255, rounded; 0 for an empty mask.
    @inline(__always) func level(_ pixel: UInt32) -> UInt8 {
        guard largest > 0 else { return 0 }
        let value = UInt64((pixel & mask) >> shift)
        return UInt8((value * 255 + largest / 2) / largest)
    }
}
