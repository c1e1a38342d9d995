/// How a picture file is coded, as `vipsheader -a` and `identify -verbose` tell it: channels,
/// alpha, bits per sample, color space, JPEG quality and chroma subsampling, interlacing,
/// resolution, and an animation's frames, delays and loop count. Read from the file's own
/// headers (JPEG markers up to the first scan, PNG chunks, GIF blocks, RIFF chunks), never by
/// decoding; a fact the format does not state is nil.
public struct CodingFacts: Sendable {
    /// Channels as stored: 1 gray, 2 gray and alpha, 3 color, 4 color and alpha (or CMYK).
    public var channels: Int?
    public var hasAlpha: Bool?
    /// Bits per sample (a palette's index bits for GIF and palette PNG).
    public var bitDepth: Int?
    /// `YCbCr`, `RGB`, `gray`, `CMYK`, `YCCK`, `palette`.
    public var colorSpace: String?
    /// The JPEG quality (1–100) whose standard tables are nearest the file's luma table: exact
    /// for files from libjpeg and its kin, an estimate for a camera's own tables.
    public var jpegQuality: Int?
    /// JPEG chroma subsampling: `4:4:4`, `4:2:2`, `4:2:0`, `4:4:0`, `4:1:1`.
    public var chroma: String?
    /// Progressive JPEG, interlaced PNG (Adam7) or GIF.
    public var interlaced: Bool?
    /// WebP: lossless (VP8L) or lossy (VP8).
    public var lossless: Bool?
    /// Pixels per inch across and down, as stored (JFIF density, PNG pHYs).
    public var dpi: (x: Double, y: Double)?
    /// Each frame's delay in milliseconds, for an animation.
    public var delays: [Int] = []
    /// How many times an animation plays; 0 forever, nil when the file does not say.
    public var plays: Int?
    /// PNG color chunks present: `sRGB`, `gAMA 0.45455`, `cHRM`, `iCCP`, `cICP`.
    public var colorChunks: [String] = []

    public init() {}

    /// The facts of a file of `format` held in `bytes`; empty for formats read otherwise.
    public static func read(_ bytes: [UInt8], format: SourceFormat) -> CodingFacts {
        var facts = CodingFacts()
        switch format {
        case .jpeg: facts.readJPEG(bytes)
        case .png: facts.readPNG(bytes)
        case .gif: facts.readGIF(bytes)
        case .webp: facts.readWebP(bytes)
        case .tiff: facts.readTIFF(bytes)
        case .bmp: facts.readBMP(bytes)
        case .avif, .heif: facts = (try? HEIFDecoder.codingFacts(of: bytes, format: format, path: nil)) ?? facts
        case .jxl: facts = JXLDecoder.codingFacts(of: bytes)
        default: break
        }
        return facts
    }

    // MARK: JPEG

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

    // MARK: PNG

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

    static func big32(_ bytes: [UInt8], _ at: Int) -> UInt32 {
        UInt32(bytes[at]) << 24 | UInt32(bytes[at + 1]) << 16 | UInt32(bytes[at + 2]) << 8 | UInt32(bytes[at + 3])
    }

    static func little(_ bytes: [UInt8], _ at: Int, _ count: Int) -> Int {
        (0..<count).reduce(0) { $0 | Int(bytes[at + $1]) << (8 * $1) }
    }

    // MARK: GIF

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

    // MARK: TIFF

    /// The first directory's tags: samples per pixel, bits, extra samples, photometric
    /// interpretation, resolution.
    private mutating func readTIFF(_ bytes: [UInt8]) {
        guard bytes.count >= 8 else { return }
        let little = bytes[0] == 0x49
        func number(_ at: Int, _ count: Int) -> Int? {
            guard at >= 0, at + count <= bytes.count else { return nil }
            return (0..<count).reduce(0) { $0 | Int(bytes[at + (little ? $1 : count - 1 - $1)]) << (8 * $1) }
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

    // MARK: BMP

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

    // MARK: WebP

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
