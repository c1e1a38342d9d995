extension CodingFacts {
    /// A PNG's coding facts: its chunks (IHDR, tRNS, pHYs, acTL and fcTL, the color chunks).
    static func png(_ bytes: [UInt8]) -> CodingFacts {
        var facts = CodingFacts()
        facts.readPNG(bytes)
        return facts
    }

    private mutating func readPNG(_ bytes: [UInt8]) {
        var offset = 8
        var colorType = 0
        var transparency = false
        while offset + 12 <= bytes.count {
            let length = Int(Self.big32(bytes, offset))
            let type = String(decoding: bytes[offset + 4..<offset + 8], as: UTF8.self)
            let start = offset + 8
            guard length >= 0, start + length + 4 <= bytes.count else { break }
            switch type {
            case "IHDR" where length >= 13:
                bitDepth = Int(bytes[start + 8])
                colorType = Int(bytes[start + 9])
                interlaced = bytes[start + 12] == 1
            case "tRNS": transparency = true
            case "pHYs" where length >= 9 && bytes[start + 8] == 1:
                dpi = (Double(Self.big32(bytes, start)) * 0.0254, Double(Self.big32(bytes, start + 4)) * 0.0254)
            case "acTL" where length >= 8:
                plays = Int(Self.big32(bytes, start + 4))
            case "fcTL" where length >= 26:
                let numerator = Int(bytes[start + 20]) << 8 | Int(bytes[start + 21])
                let denominator = Int(bytes[start + 22]) << 8 | Int(bytes[start + 23])
                delays.append(APNGFrameControl.milliseconds(numerator: numerator, denominator: denominator))
            case "gAMA" where length >= 4:
                colorChunks.append("gAMA \(NumberFormat.text(Double(Self.big32(bytes, start)) / 100_000))")
            case "sRGB", "cHRM", "iCCP", "cICP":
                colorChunks.append(type)
            case "IEND":
                offset = bytes.count
                continue
            default: break
            }
            offset = start + length + 4
        }
        switch colorType {
        case 0: (channels, colorSpace, hasAlpha) = (1, "gray", transparency)
        case 2: (channels, colorSpace, hasAlpha) = (3, "RGB", transparency)
        case 3: (channels, colorSpace, hasAlpha) = (1, "palette", transparency)
        case 4: (channels, colorSpace, hasAlpha) = (2, "gray", true)
        case 6: (channels, colorSpace, hasAlpha) = (4, "RGB", true)
        default: break
        }
        if delays.count <= 1 { delays = [] }
    }
}
