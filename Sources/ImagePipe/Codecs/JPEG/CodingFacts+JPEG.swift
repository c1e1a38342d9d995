extension CodingFacts {
    /// A JPEG's coding facts: its markers up to the first scan (frame header, quantization tables,
/// JFIF density, Adobe transform).
    static func jpeg(_ bytes: [UInt8]) -> CodingFacts {
        var facts = CodingFacts()
        facts.readJPEG(bytes)
        return facts
    }

    /// The facts of the JPEG file at `path`, read up to its first scan only: the tables and the
    /// frame header come before it, and a 300-megapixel file's 118 MB need not be held for them.
    static func jpeg(path: String, limit: Int?, deadline: ContinuousClock.Instant?) throws -> CodingFacts {
        jpeg(try segmentsBeforeFirstScan { body in try ImageFile.readChunks(path: path, limit: limit, deadline: deadline, body) })
    }

    /// A JPEG's bytes up to its first scan (or its end), taken from `chunks` as they come: every
    /// segment that holds a table, the frame header or metadata.
    static func segmentsBeforeFirstScan(_ chunks: (_ body: (UnsafeRawBufferPointer) throws -> Bool) throws -> Void) throws -> [UInt8] {
        var bytes: [UInt8] = [], offset = 2
        try chunks { chunk in
            bytes += chunk
            // Marker by marker, as `readJPEG` walks them, up to the first scan's.
            while offset + 4 <= bytes.count {
                guard bytes[offset] == 0xFF else { offset += 1; continue }
                let marker = bytes[offset + 1]
                if marker == 0xDA || marker == 0xD9 { return false }
                if marker == 0xFF { offset += 1; continue }
                if marker == 0xD8 || (0xD0...0xD7).contains(marker) || marker == 0x01 { offset += 2; continue }
                offset += 2 + max(2, Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3]))
            }
            return true
        }
        return bytes
    }

    /// libjpeg's standard luminance table (ITU T.81 Annex K), row by row.
    static let standardLumaRows: [Int] = [
        16, 11, 10, 16, 24, 40, 51, 61, 12, 12, 14, 19, 26, 58, 60, 55, 14, 13, 16, 24, 40, 57, 69, 56, 14, 17, 22, 29, 51, 87, 80, 62,
        18, 22, 37, 56, 68, 109, 103, 77, 24, 35, 55, 64, 81, 104, 113, 92, 49, 64, 78, 87, 103, 121, 120, 101, 72, 92, 95, 98, 112, 100, 103, 99,
    ]

    /// The same in zigzag order, as DQT stores a table: the diagonals walked from the top left.
    static let standardLuma: [Int] = {
        var order: [Int] = []
        for diagonal in 0..<15 {
            let cells = (0...diagonal).map { ($0, diagonal - $0) }.filter { $0.0 < 8 && $0.1 < 8 }
            // Even diagonals go up (row falling), odd ones down.
            for (row, column) in diagonal % 2 == 0 ? cells.reversed() : cells { order.append(row * 8 + column) }
        }
        return order.map { standardLumaRows[$0] }
    }()

    /// The luma table libjpeg writes at `quality` (its `jpeg_quality_scaling`, baseline-clamped).
    static func lumaTable(quality: Int) -> [Int] {
        let scale = quality < 50 ? 5000 / quality : 200 - quality * 2
        return standardLuma.map { min(255, max(1, ($0 * scale + 50) / 100)) }
    }

    /// The quality whose table is nearest `table` (sum of absolute differences).
    static func quality(ofLuma table: [Int]) -> Int? {
        guard table.count == 64 else { return nil }
        let distances = (1...100).map { quality in (quality, zip(lumaTable(quality: quality), table).reduce(0) { $0 + abs($1.0 - $1.1) }) }
        return distances.min { $0.1 < $1.1 }?.0
    }

    private mutating func readJPEG(_ bytes: [UInt8]) {
        var offset = 2
        var adobeTransform: Int?
        var componentIDs: [UInt8] = []
        var sampling: [(h: Int, v: Int)] = []
        var tables: [Int: [Int]] = [:]
        var lumaTableIndex = 0
        while offset + 4 <= bytes.count {
            // Bytes between segments that start no marker are passed over, as libjpeg passes over them.
            guard bytes[offset] == 0xFF else { offset += 1; continue }
            let marker = bytes[offset + 1]
            if marker == 0xFF { offset += 1; continue }
            if marker == 0xD8 || (0xD0...0xD7).contains(marker) || marker == 0x01 { offset += 2; continue }
            let length = Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
            let start = offset + 4, end = offset + 2 + length
            guard length >= 2, end <= bytes.count else { return }
            let body = bytes[start..<end]
            switch marker {
            case 0xDA, 0xD9:
                break
            case 0xDB:
                // Tables: a byte of precision (high nibble) and index, then 64 values.
                var at = body.startIndex
                while at < body.endIndex {
                    let wide = bytes[at] >> 4 != 0, index = Int(bytes[at] & 0x0F)
                    let size = wide ? 128 : 64
                    guard at + 1 + size <= body.endIndex else { break }
                    tables[index] = (0..<64).map { wide ? Int(bytes[at + 1 + $0 * 2]) << 8 | Int(bytes[at + 2 + $0 * 2]) : Int(bytes[at + 1 + $0]) }
                    at += 1 + size
                }
            case 0xC0...0xCF where marker != 0xC4 && marker != 0xC8 && marker != 0xCC:
                guard body.count >= 6 else { return }
                bitDepth = Int(body[start])
                let count = Int(body[start + 5])
                channels = count
                hasAlpha = false
                interlaced = [0xC2, 0xC6, 0xCA, 0xCE].contains(marker)
                for component in 0..<count where start + 6 + component * 3 + 2 < end {
                    let at = start + 6 + component * 3
                    componentIDs.append(bytes[at])
                    sampling.append((Int(bytes[at + 1] >> 4), Int(bytes[at + 1] & 0x0F)))
                    if component == 0 { lumaTableIndex = Int(bytes[at + 2]) }
                }
            case 0xE0 where body.starts(with: Array("JFIF\0".utf8)) && body.count >= 12:
                let units = body[start + 7]
                let x = Double(Int(body[start + 8]) << 8 | Int(body[start + 9])), y = Double(Int(body[start + 10]) << 8 | Int(body[start + 11]))
                if x > 0, y > 0, units == 1 || units == 2 { dpi = units == 1 ? (x, y) : (x * 2.54, y * 2.54) }
            case 0xEE where body.starts(with: Array("Adobe".utf8)) && body.count >= 12:
                adobeTransform = Int(body[start + 11])
            default:
                break
            }
            if marker == 0xDA || marker == 0xD9 { break }
            offset = end
        }
        if let table = tables[lumaTableIndex] { jpegQuality = Self.quality(ofLuma: table) }
        switch channels {
        case 1: colorSpace = "gray"
        case 3:
            colorSpace = adobeTransform == 0 || componentIDs == Array("RGB".utf8) ? "RGB" : "YCbCr"
            if colorSpace == "YCbCr", sampling.count == 3, sampling[1].h == sampling[2].h, sampling[1].v == sampling[2].v {
                let (h, v) = (sampling[0].h / max(1, sampling[1].h), sampling[0].v / max(1, sampling[1].v))
                chroma = ["1x1": "4:4:4", "2x1": "4:2:2", "2x2": "4:2:0", "1x2": "4:4:0", "4x1": "4:1:1"]["\(h)x\(v)"]
            }
        case 4: colorSpace = adobeTransform == 2 ? "YCCK" : "CMYK"
        default: break
        }
    }
}
