extension CodingFacts {
    /// A TIFF's coding facts: its first directory's tags.
    static func tiff(_ input: EncodedInput) -> CodingFacts {
        var facts = CodingFacts()
        facts.readTIFF(input)
        return facts
    }

    /// The first directory's tags: samples per pixel, bits, extra samples, photometric
    /// interpretation, resolution.
    /// Each number is read where it lies, so a file is read only at its directory.
    private mutating func readTIFF(_ input: EncodedInput) {
        guard let order = try? input.bytes(count: 1, at: 0), order.count == 1 else { return }
        let little = order[0] == 0x49
        func number(_ at: Int, _ count: Int) -> Int? {
            guard at >= 0, let bytes = try? input.bytes(count: count, at: at), bytes.count == count else { return nil }
            return (0..<count).reduce(0) { $0 | Int(bytes[little ? $1 : count - 1 - $1]) << (8 * $1) }
        }
        guard let first = number(4, 4), let entries = number(first, 2), entries < 4096 else { return }
        var tags: [Int: (type: Int, count: Int, at: Int)] = [:]
        for index in 0..<entries {
            let at = first + 2 + index * 12
            guard let tag = number(at, 2), let type = number(at + 2, 2), let count = number(at + 4, 4) else { break }
            let size = [1: 1, 2: 1, 3: 2, 4: 4, 5: 8][type] ?? 1
            // A value of up to 4 bytes is held in the entry; a larger one lies at the offset given.
            let valueAt = size * count <= 4 ? at + 8 : number(at + 8, 4) ?? -1
            tags[tag] = (type, count, valueAt)
        }
        func value(_ tag: Int) -> Int? {
            guard let entry = tags[tag] else { return nil }
            return number(entry.at, entry.type == 3 ? 2 : entry.type == 4 ? 4 : 1)
        }
        func rational(_ tag: Int) -> Double? {
            guard let entry = tags[tag], entry.type == 5, let top = number(entry.at, 4), let bottom = number(entry.at + 4, 4), bottom > 0 else { return nil }
            return Double(top) / Double(bottom)
        }
        channels = value(277) ?? 1
        bitDepth = value(258) ?? 1
        hasAlpha = [1, 2].contains(value(338) ?? 0)
        colorSpace = [0: "gray", 1: "gray", 2: "RGB", 3: "palette", 5: "CMYK", 6: "YCbCr", 8: "CIELab"][value(262) ?? -1]
        if let x = rational(282), let y = rational(283), x > 0, y > 0 {
            let unit = value(296) ?? 2
            if unit == 2 || unit == 3 { dpi = unit == 2 ? (x, y) : (x * 2.54, y * 2.54) }
        }
    }
}
