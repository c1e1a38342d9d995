extension CodingFacts {
    /// A GIF's coding facts: its blocks (palettes, graphic control extensions, NETSCAPE2.0 loop).
    static func gif(_ bytes: [UInt8]) -> CodingFacts {
        var facts = CodingFacts()
        facts.readGIF(bytes)
        return facts
    }

    private mutating func readGIF(_ bytes: [UInt8]) {
        guard bytes.count >= 13 else { return }
        (channels, colorSpace, hasAlpha, interlaced) = (1, "palette", false, false)
        var paletteBits = bytes[10] & 0x80 != 0 ? Int(bytes[10] & 0x07) + 1 : 0
        var offset = 13 + (bytes[10] & 0x80 != 0 ? 3 << (Int(bytes[10] & 0x07) + 1) : 0)
        var pendingDelay = 0, frames = 0
        /// Skips data sub-blocks from `at`; returns the offset after their terminator.
        func skipBlocks(_ at: Int) -> Int? {
            var at = at
            while at < bytes.count {
                let size = Int(bytes[at])
                at += 1 + size
                if size == 0 { return at }
            }
            return nil
        }
        var frameDelays: [Int] = []
        while offset < bytes.count {
            switch bytes[offset] {
            case 0x21 where offset + 2 < bytes.count:
                let label = bytes[offset + 1]
                if label == 0xF9, offset + 7 < bytes.count, bytes[offset + 2] >= 4 {
                    pendingDelay = Self.little(bytes, offset + 4, 2) * 10
                    if bytes[offset + 3] & 0x01 != 0 { hasAlpha = true }
                } else if label == 0xFF, offset + 18 < bytes.count, bytes[offset + 2] == 11,
                          Array(bytes[offset + 3..<offset + 14]) == Array("NETSCAPE2.0".utf8), bytes[offset + 15] == 1 {
                    // NETSCAPE2.0 counts the repeats after the first showing.
                    let repeats = Self.little(bytes, offset + 16, 2)
                    plays = repeats == 0 ? 0 : repeats + 1
                }
                guard let next = skipBlocks(offset + 2) else { offset = bytes.count; continue }
                offset = next
            case 0x2C where offset + 10 < bytes.count:
                frames += 1
                frameDelays.append(pendingDelay)
                pendingDelay = 0
                let packed = bytes[offset + 9]
                if packed & 0x40 != 0 { interlaced = true }
                if packed & 0x80 != 0 { paletteBits = max(paletteBits, Int(packed & 0x07) + 1) }
                offset += 10 + (packed & 0x80 != 0 ? 3 << (Int(packed & 0x07) + 1) : 0) + 1 // + LZW code size
                guard let next = skipBlocks(offset) else { offset = bytes.count; continue }
                offset = next
            default:
                offset = bytes.count
            }
        }
        bitDepth = paletteBits == 0 ? nil : paletteBits
        if frames > 1 { delays = frameDelays }
    }
}
