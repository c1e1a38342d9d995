#if canImport(Glibc)
import Glibc
#endif

/// Reads the EXIF orientation tag of a JPEG's APP1 segment, or a TIFF's own orientation
/// tag, so that a plan can know the turned size before decoding (gdk_pixbuf_get_file_info does
/// not look at either). The decode then turns the picture by this same reading, never by the
/// loader's (`PixbufDecoder.finish`).
enum ExifOrientation {
    /// The orientation of a picture held in memory (or the start of one): TIFF's tag, a PNG's
    /// eXIf chunk before its image data; 1 for the others. A JPEG's comes
    /// with its header (`JPEGHeader`).
    static func parse(_ bytes: [UInt8], format: SourceFormat) -> Int {
        switch format {
        case .tiff: return parseTIFF(bytes, start: 0, end: bytes.count)
        case .png:
            guard let chunk = pngChunks(bytes).first(where: { $0.type == "eXIf" }) else { return 1 }
            return parseExifBlock(bytes, chunk.data)
        default: return 1
        }
    }

    /// The orientation in a block of TIFF-structured EXIF (a PNG's eXIf, a WebP's EXIF chunk,
    /// as `ImageMetadata.exif` holds it); 1 without one.
    static func parse(exif: [UInt8]?) -> Int {
        guard let exif else { return 1 }
        return parseExifBlock(exif, 0..<exif.count)
    }

    /// TIFF-structured EXIF in `range` of `bytes`, with or without the "Exif\0\0" that some
    /// writers put before it.
    private static func parseExifBlock(_ bytes: [UInt8], _ range: Range<Int>) -> Int {
        let prefixed = range.count >= 6 && bytes[range.lowerBound..<range.lowerBound + 6].elementsEqual("Exif\0\0".utf8)
        return parseTIFF(bytes, start: range.lowerBound + (prefixed ? 6 : 0), end: range.upperBound)
    }

    /// A PNG's whole chunks before its first IDAT (the eXIf chunk counts only there, as
    /// browsers take it), as far as `bytes` holds them.
    static func pngChunks(_ bytes: [UInt8]) -> [(type: String, data: Range<Int>)] {
        var chunks: [(type: String, data: Range<Int>)] = []
        var offset = 8
        while offset + 8 <= bytes.count {
            let length = bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            let type = String(decoding: bytes[offset + 4..<offset + 8], as: UTF8.self)
            let start = offset + 8
            guard type != "IDAT", type != "IEND", length <= bytes.count - start else { break }
            chunks.append((type, start..<start + length))
            offset = start + length + 4
        }
        return chunks
    }

    /// Walks the JPEG markers up to the first APP1 "Exif" segment and reads tag 0x0112 of IFD0.
    static func parse(jpeg bytes: [UInt8]) -> Int {
        guard bytes.count > 4, bytes[0] == 0xFF, bytes[1] == 0xD8 else { return 1 }
        var position = 2
        while position + 4 <= bytes.count, bytes[position] == 0xFF {
            let marker = bytes[position + 1]
            let length = Int(bytes[position + 2]) << 8 | Int(bytes[position + 3])
            let body = position + 4
            if marker == 0xDA || length < 2 { return 1 } // image data starts: no EXIF before it
            if marker == 0xE1, body + 6 <= bytes.count, Array(bytes[body..<body + 6]) == Array("Exif\0\0".utf8) {
                return parseTIFF(bytes, start: body + 6, end: min(bytes.count, position + 2 + length))
            }
            position += 2 + length
        }
        return 1
    }

    private static func parseTIFF(_ bytes: [UInt8], start: Int, end: Int) -> Int {
        let entry = orientationEntry(inTIFF: bytes, start: start, end: end)
        return entry?.value.flatMap { (1...8).contains($0) ? $0 : nil } ?? 1
    }

    /// IFD0's orientation entry (tag 0x0112) in TIFF-structured bytes from `start` to `end`.
    static func orientationEntry(inTIFF bytes: [UInt8], start: Int = 0, end: Int) -> OrientationEntry? {
        orientationEntry { offset, count in
            guard offset >= 0, start + offset + count <= end else { return nil }
            return Array(bytes[(start + offset)..<(start + offset + count)])
        }
    }

    /// Where the orientation lies, and what it says: the one walk of IFD0 that both reading it
    /// and resetting it (`ExifBlock.withOrientationReset`) use, so that the tag a reset patches
    /// is the tag the decode turns by. The first 0x0112 entry counts; nil without one.
    private static func orientationEntry(_ bytes: (Int, Int) -> [UInt8]?) -> OrientationEntry? {
        guard let order = bytes(0, 1) else { return nil }
        let littleEndian = order[0] == 0x49 // "II"
        func read16(_ offset: Int) -> Int? {
            guard offset >= 0, let pair = bytes(offset, 2) else { return nil }
            let a = Int(pair[0]), b = Int(pair[1])
            return littleEndian ? a | b << 8 : a << 8 | b
        }
        func read32(_ offset: Int) -> Int? {
            guard let low = read16(littleEndian ? offset : offset + 2),
                  let high = read16(littleEndian ? offset + 2 : offset) else { return nil }
            return high << 16 | low
        }
        guard let ifd = read32(4), let count = read16(ifd) else { return nil }
        for entry in 0..<count {
            let offset = ifd + 2 + entry * 12
            guard let tag = read16(offset) else { return nil }
            // A SHORT value sits in the entry's first two value bytes, 8 bytes in.
            if tag == 0x0112 { return OrientationEntry(valueOffset: offset + 8, type: read16(offset + 2), value: read16(offset + 8)) }
        }
        return nil
    }
}
