extension ExifOrientation {
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
}
