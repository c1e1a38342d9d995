import ImagePipe

/// Small pictures made in code, so tests know every pixel.
public enum Synthetic {
    /// A picture whose pixel (x, y) is `color(x, y)`.
    public static func image(_ width: Int, _ height: Int, alpha: Bool = false,
                             _ color: (Int, Int) -> Color) throws -> Image {
        try Image.make(size: Size(width, height), hasAlpha: alpha) { writer in
            for y in 0..<height {
                let row = writer.row(y)
                for x in 0..<width {
                    let c = color(x, y)
                    let start = x * writer.channelCount
                    row[start] = c.red
                    row[start + 1] = c.green
                    row[start + 2] = c.blue
                    if alpha { row[start + 3] = c.alpha }
                }
            }
        }
    }

    /// A smooth colour ramp: red grows along x, green along y, blue fixed; opaque.
    public static func gradient(_ width: Int, _ height: Int, alpha: Bool = false) throws -> Image {
        try image(width, height, alpha: alpha) { x, y in
            Color(red: UInt8(x * 255 / max(1, width - 1)), green: UInt8(y * 255 / max(1, height - 1)), blue: 96)
        }
    }

    /// Left half red, right half blue: shows which way a picture was turned.
    public static func halves(_ width: Int, _ height: Int) throws -> Image {
        try image(width, height) { x, _ in x < width / 2 ? Color(red: 255, green: 0, blue: 0) : Color(red: 0, green: 0, blue: 255) }
    }

    /// JPEG bytes with an EXIF APP1 segment carrying `orientation`, inserted after SOI, as a
    /// camera would write it.
    public static func withExifOrientation(_ jpeg: [UInt8], orientation: UInt16) -> [UInt8] {
        var tiff: [UInt8] = [0x49, 0x49, 0x2A, 0x00, 0x08, 0x00, 0x00, 0x00] // "II*", IFD at 8
        tiff += [0x01, 0x00] // one entry
        tiff += [0x12, 0x01, 0x03, 0x00, 0x01, 0x00, 0x00, 0x00] // tag 0x0112, SHORT, count 1
        tiff += [UInt8(orientation & 0xFF), UInt8(orientation >> 8), 0x00, 0x00]
        tiff += [0x00, 0x00, 0x00, 0x00] // no next IFD
        let body = Array("Exif\0\0".utf8) + tiff
        let length = body.count + 2
        let segment: [UInt8] = [0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + body
        return Array(jpeg[0..<2]) + segment + Array(jpeg[2...])
    }

    /// Whether two colours differ by at most `tolerance` in every channel.
    public static func close(_ a: Color, _ b: Color, tolerance: Int) -> Bool {
        abs(Int(a.red) - Int(b.red)) <= tolerance && abs(Int(a.green) - Int(b.green)) <= tolerance
            && abs(Int(a.blue) - Int(b.blue)) <= tolerance && abs(Int(a.alpha) - Int(b.alpha)) <= tolerance
    }
}

extension Synthetic {
    /// A flat grey-blue picture with a bright, busy object (a 2-pixel checkerboard of saturated
    /// colours) in `object`: where a smart crop must look.
    public static func objectOnFlat(_ width: Int, _ height: Int, object: Rect) throws -> Image {
        try image(width, height) { x, y in
            guard x >= object.x, x < object.maxX, y >= object.y, y < object.maxY else { return Color(red: 90, green: 100, blue: 110) }
            return (x / 2 + y / 2) % 2 == 0 ? Color(red: 255, green: 230, blue: 40) : Color(red: 20, green: 40, blue: 220)
        }
    }
}

extension Synthetic {
    /// PNG's CRC-32 (ISO 3309, the one zlib computes) of `bytes`.
    public static func crc32(_ bytes: some Sequence<UInt8>) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc = crcTable[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8)
        }
        return crc ^ 0xFFFF_FFFF
    }

    private static let crcTable: [UInt32] = (0..<256).map { (n: Int) -> UInt32 in
        var c = UInt32(n)
        for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }

    /// A PNG chunk: length, type, data and CRC.
    public static func pngChunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let typed = Array(type.utf8) + data
        func big(_ value: UInt32) -> [UInt8] { [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] }
        return big(UInt32(data.count)) + typed + big(crc32(typed))
    }

    /// `png` with `chunks` inserted right after its IHDR chunk (the signature and IHDR are 33 bytes).
    public static func png(_ png: [UInt8], inserting chunks: [UInt8]) -> [UInt8] {
        Array(png[0..<33]) + chunks + Array(png[33...])
    }
}
