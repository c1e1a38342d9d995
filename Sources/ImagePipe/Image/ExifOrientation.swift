/// Reads the EXIF orientation tag of a JPEG from its first bytes, so that a plan can know the
/// turned size before decoding (gdk_pixbuf_get_file_info does not look at EXIF).
enum ExifOrientation {
    /// The orientation, 1–8; 1 when the file has no such tag.
    static func read(path: String) throws -> Int {
        parse(jpeg: try ImageFile.prefix(path: path, count: 1 << 17))
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
        guard start + 8 <= end else { return 1 }
        let littleEndian = bytes[start] == 0x49 // "II"
        func read16(_ offset: Int) -> Int? {
            guard offset >= 0, start + offset + 2 <= end else { return nil }
            let a = Int(bytes[start + offset]), b = Int(bytes[start + offset + 1])
            return littleEndian ? a | b << 8 : a << 8 | b
        }
        func read32(_ offset: Int) -> Int? {
            guard let low = read16(littleEndian ? offset : offset + 2),
                  let high = read16(littleEndian ? offset + 2 : offset) else { return nil }
            return high << 16 | low
        }
        guard let ifd = read32(4), let count = read16(ifd) else { return 1 }
        for entry in 0..<count {
            let offset = ifd + 2 + entry * 12
            guard let tag = read16(offset) else { return 1 }
            if tag == 0x0112, let value = read16(offset + 8), (1...8).contains(value) { return value }
        }
        return 1
    }
}
