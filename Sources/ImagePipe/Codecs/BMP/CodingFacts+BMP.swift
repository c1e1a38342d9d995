extension CodingFacts {
    /// A BMP's coding facts: its info header.
    static func bmp(_ bytes: [UInt8]) -> CodingFacts {
        var facts = CodingFacts()
        facts.readBMP(bytes)
        return facts
    }

    /// The info header: bits per pixel, compression, alpha mask (V4 and later), resolution.
    private mutating func readBMP(_ bytes: [UInt8]) {
        guard bytes.count >= 54 else { return }
        let headerSize = Self.little(bytes, 14, 4), bits = Self.little(bytes, 28, 2)
        let alphaMask = headerSize >= 56 && bytes.count >= 70 ? Self.little(bytes, 66, 4) : 0
        hasAlpha = bits == 32 && alphaMask != 0
        switch bits {
        case 1, 4, 8: (channels, colorSpace, bitDepth) = (1, "palette", bits)
        case 16: (channels, colorSpace, bitDepth) = (3, "RGB", 5)
        default: (channels, colorSpace, bitDepth) = (hasAlpha == true ? 4 : 3, "RGB", 8)
        }
        let (x, y) = (Double(Self.little(bytes, 38, 4)), Double(Self.little(bytes, 42, 4)))
        if x > 0, y > 0 { dpi = (x * 0.0254, y * 0.0254) }
    }
}
