extension CodingFacts {
    /// A WebP's coding facts: its RIFF chunks (VP8X, ANIM, ANMF, VP8, VP8L).
    static func webp(_ bytes: [UInt8]) -> CodingFacts {
        var facts = CodingFacts()
        facts.readWebP(bytes)
        return facts
    }

    private mutating func readWebP(_ bytes: [UInt8]) {
        var offset = 12
        while offset + 8 <= bytes.count {
            let type = String(decoding: bytes[offset..<offset + 4], as: UTF8.self)
            let length = Self.little(bytes, offset + 4, 4)
            let start = offset + 8
            guard start + length <= bytes.count else { break }
            switch type {
            case "VP8X" where length >= 10:
                hasAlpha = bytes[start] & 0x10 != 0
            case "ANIM" where length >= 6:
                plays = Self.little(bytes, start + 4, 2)
            case "ANMF" where length >= 16:
                delays.append(Self.little(bytes, start + 12, 3))
                // The frame's own image chunks follow its 16-byte header.
                if lossless == nil, start + 20 <= bytes.count {
                    lossless = String(decoding: bytes[start + 16..<start + 20], as: UTF8.self) == "VP8L"
                }
            case "VP8 ":
                lossless = false
            case "VP8L" where length >= 5:
                lossless = true
                if hasAlpha == nil { hasAlpha = bytes[start + 4] & 0x10 != 0 }
            default: break
            }
            offset = start + length + (length & 1)
        }
        if hasAlpha == nil { hasAlpha = false }
        (channels, colorSpace, bitDepth) = (hasAlpha == true ? 4 : 3, lossless == true ? "RGB" : "YCbCr", 8)
    }
}
