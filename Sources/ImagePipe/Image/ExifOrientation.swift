#if canImport(Glibc)
import Glibc
#endif

/// Reads the EXIF orientation tag from a block of TIFF-structured EXIF, so that a plan can know
/// the turned size before decoding (gdk_pixbuf_get_file_info does not look at it). The decode
/// then turns the picture by this same reading, never by a loader's. Where a format keeps the
/// block is its codec's reading (`ExifOrientation+JPEG`, `ExifOrientation+PNG`).
enum ExifOrientation {
    /// The orientation in a block of TIFF-structured EXIF (a PNG's eXIf, a WebP's EXIF chunk,
    /// as `ImageMetadata.exif` holds it); 1 without one.
    static func parse(exif: [UInt8]?) -> Int {
        guard let exif else { return 1 }
        return parseExifBlock(exif, 0..<exif.count)
    }

    /// TIFF-structured EXIF in `range` of `bytes`, with or without the "Exif\0\0" that some
    /// writers put before it.
    static func parseExifBlock(_ bytes: [UInt8], _ range: Range<Int>) -> Int {
        let prefixed = range.count >= 6 && bytes[range.lowerBound..<range.lowerBound + 6].elementsEqual("Exif\0\0".utf8)
        return parseTIFF(bytes, start: range.lowerBound + (prefixed ? 6 : 0), end: range.upperBound)
    }

    static func parseTIFF(_ bytes: [UInt8], start: Int, end: Int) -> Int {
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
