/// BMP reading of our own. gdk-pixbuf's loader showed RGB565 with a palette shifted, 8-bit
/// palettes after a gap or an OS/2 header black, bit fields such as 8-8-0 or 4-4-4-4 wrong,
/// alpha masks ignored, and damaged run-length data as a partly transparent picture with no
/// error. This reads every header version, 1 to 32 bits per pixel, any bit masks (each field
/// scaled to 8 bits), RLE8, RLE4 and OS/2's RLE24 with their deltas, bottom-up or top-down rows,
/// the data where the file header places it, an embedded ICC profile, and an embedded JPEG or
/// PNG through that format's decoder. bmpsuite is the reference: its good files right, its
/// questionable ones as Chromium shows them, its bad ones refused (or read where the field
/// they break is one no pixel depends on).
enum BMPDecoder {
    /// The header of the BMP at the start of `bytes` (the file, or its first `BMPHeader.prefixLength` bytes).
    static func header(of bytes: [UInt8], path: String?) throws -> ImageHeader {
        let header = try BMPHeader.read(bytes, path: path)
        return ImageHeader(storedSize: header.size, format: .bmp)
    }

    static func decode(_ b: [UInt8], options: LoadOptions, path: String?) throws -> Image {
        let header = try BMPHeader.read(b, path: path)
        try ImageHeader(storedSize: header.size, format: .bmp).checkPixels(limit: options.maxPixels, path: path)
        if header.compression == .jpeg || header.compression == .png { return try embedded(b, header: header, options: options, path: path) }
        var damage = BMPDamage(options: options, path: path)
        let image = header.isRunLength ? try runLength(b, header: header, damage: &damage, options: options, path: path)
            : try uncompressed(b, header: header, damage: &damage, options: options, path: path)
        try damage.check()
        return try Image.colorManaged(image, metadata: ImageMetadata(sourceProfile: header.profile), options: options, path: path)
    }

    /// Rows as they are stored, 1 to 32 bits per pixel.
    private static func uncompressed(_ b: [UInt8], header: BMPHeader, damage: inout BMPDamage, options: LoadOptions, path: String?) throws -> Image {
        let size = header.size, rowBytes = header.rowBytes, bits = header.bitsPerPixel
        let available = max(0, b.count - header.dataOffset)
        let wholeRows = min(size.height, available / rowBytes)
        if wholeRows < size.height {
            let reason = "the BMP's pixel data ends after \(wholeRows) of its \(size.height) rows"
            if damage.note(.truncated, reason) { try damage.check() }
        }
        let fields = header.masks.map(BMPBitField.init)
        let hasAlpha = fields.count == 4 && fields[3].mask != 0
        let palette = header.palette, paletteCount = header.paletteCount
        var badIndex = false
        var alphaSeen: UInt8 = 0
        let image = try Image.make(size: size, hasAlpha: hasAlpha) { writer in
            let channels = writer.channelCount
            try b.withUnsafeBufferPointer { bytes in
                for stored in 0..<wholeRows {
                    if stored % 256 == 0 { try options.checkDeadline(path: path) }
                    let row = writer.row(header.topDown ? stored : size.height - 1 - stored)
                    let source = bytes.baseAddress! + header.dataOffset + stored * rowBytes
                    switch bits {
                    case 1, 2, 4, 8:
                        let perByte = 8 / bits, lowest = (1 << bits) - 1
                        for x in 0..<size.width {
                            let shift = 8 - bits * (x % perByte + 1)
                            let index = (Int(source[x / perByte]) >> shift) & lowest
                            let out = x * channels
                            if index < paletteCount {
                                (row[out], row[out + 1], row[out + 2]) = (palette[index * 3], palette[index * 3 + 1], palette[index * 3 + 2])
                            } else {
                                // Past the palette: black, as browsers show it, and damage.
                                (row[out], row[out + 1], row[out + 2]) = (0, 0, 0)
                                badIndex = true
                            }
                        }
                    case 24:
                        for x in 0..<size.width {
                            let at = x * 3
                            (row[at], row[at + 1], row[at + 2]) = (source[at + 2], source[at + 1], source[at])
                        }
                    default: // 16 or 32, through the masks
                        let wide = bits == 32
                        for x in 0..<size.width {
                            let at = x * bits / 8, out = x * channels
                            var value = UInt32(source[at]) | UInt32(source[at + 1]) << 8
                            if wide { value |= UInt32(source[at + 2]) << 16 | UInt32(source[at + 3]) << 24 }
                            (row[out], row[out + 1], row[out + 2]) = (fields[0].level(value), fields[1].level(value), fields[2].level(value))
                            if hasAlpha {
                                row[out + 3] = fields[3].level(value)
                                alphaSeen |= row[out + 3]
                            }
                        }
                    }
                }
            }
            // Rows the data did not reach (taken under a lower `fail=`) are black, or transparent.
            for stored in wholeRows..<size.height { writer.row(header.topDown ? stored : size.height - 1 - stored).initialize(repeating: 0) }
        }
        if badIndex { _ = damage.note(.error, "the BMP's pixels use colors past the end of its \(paletteCount)-color palette") }
        // An alpha field that is 0 everywhere is opaque, as browsers show such files (their
        // writers left the byte empty).
        return hasAlpha && alphaSeen == 0 && wholeRows == size.height ? try opaque(image) : image
    }

    /// RLE8, RLE4 or RLE24: runs, literal runs, end of line, delta and end of bitmap. Pixels the
    /// data leaves undrawn (a delta, an early end) are transparent, as browsers show them; a run
    /// past its row or a delta past the picture is damage, as Chromium refuses it; data that
    /// ends before its last row without its end marker is cut short.
    private static func runLength(_ b: [UInt8], header: BMPHeader, damage: inout BMPDamage, options: LoadOptions, path: String?) throws -> Image {
        let size = header.size
        let palette = header.palette, paletteCount = header.paletteCount
        var badIndex = false
        var drawn = 0
        var stop: (level: FailOn, reason: String)?
        let image = try Image.make(size: size, hasAlpha: true) { writer in
            for y in 0..<size.height { writer.row(y).initialize(repeating: 0) }
            var at = header.dataOffset, x = 0, y = 0
            /// Draws `count` pixels at the pen, from `color(n)`; false when they do not fit.
            func draw(_ count: Int, _ color: (Int) -> (UInt8, UInt8, UInt8)) -> Bool {
                if y >= size.height { stop = (.error, "the BMP's run-length data draws past its last row"); return false }
                if x + count > size.width {
                    stop = (.error, "the BMP's run-length data runs past the end of row \(y) (to column \(x + count) of \(size.width))")
                    return false
                }
                let row = writer.row(size.height - 1 - y)
                for n in 0..<count {
                    let out = (x + n) * 4
                    (row[out], row[out + 1], row[out + 2]) = color(n)
                    row[out + 3] = 255
                }
                x += count
                drawn += count
                return true
            }
            func indexed(_ index: Int) -> (UInt8, UInt8, UInt8) {
                guard index < paletteCount else { badIndex = true; return (0, 0, 0) }
                return (palette[index * 3], palette[index * 3 + 1], palette[index * 3 + 2])
            }
            var steps = 0
            decoding: while true {
                steps += 1
                if steps % 65_536 == 0 { try options.checkDeadline(path: path) }
                guard at + 2 <= b.count else {
                    if y < size.height { stop = (.truncated, "the BMP's run-length data ends after \(y) of its \(size.height) rows, without its end marker") }
                    break
                }
                let first = Int(b[at]), second = Int(b[at + 1])
                at += 2
                if first > 0 { // a run of one color (two alternating indices for RLE4)
                    switch header.compression {
                    case .runLength4: guard draw(first, { indexed($0 % 2 == 0 ? second >> 4 : second & 15) }) else { break decoding }
                    case .runLength24:
                        guard at + 2 <= b.count else { stop = (.truncated, "the BMP's run-length data ends within row \(y)"); break decoding }
                        let color = (b[at + 1], b[at], UInt8(second))
                        at += 2
                        guard draw(first, { _ in color }) else { break decoding }
                    default: guard draw(first, { _ in indexed(second) }) else { break decoding }
                    }
                    continue
                }
                switch second {
                case 0: (x, y) = (0, y + 1) // end of line
                case 1: break decoding // end of bitmap
                case 2: // delta: the pen moves right and up
                    guard at + 2 <= b.count else { continue }
                    let (right, down) = (Int(b[at]), Int(b[at + 1]))
                    at += 2
                    if x + right > size.width || y + down > size.height {
                        stop = (.error, "the BMP's run-length data moves past the picture (by \(right), \(down) from column \(x) of row \(y))")
                        break decoding
                    }
                    (x, y) = (x + right, y + down)
                default: // literal pixels, padded to an even number of bytes
                    let count = second
                    let length = switch header.compression {
                    case .runLength4: (count + 1) / 2
                    case .runLength24: count * 3
                    default: count
                    }
                    guard at + length <= b.count else { stop = (.truncated, "the BMP's run-length data ends within row \(y)"); break decoding }
                    let start = at
                    let drew = switch header.compression {
                    case .runLength4: draw(count) { indexed($0 % 2 == 0 ? Int(b[start + $0 / 2]) >> 4 : Int(b[start + $0 / 2]) & 15) }
                    case .runLength24: draw(count) { (b[start + $0 * 3 + 2], b[start + $0 * 3 + 1], b[start + $0 * 3]) }
                    default: draw(count) { indexed(Int(b[start + $0])) }
                    }
                    guard drew else { break decoding }
                    at += length + length % 2
                }
            }
        }
        if let stop, damage.note(stop.level, stop.reason) { try damage.check() }
        if badIndex { _ = damage.note(.error, "the BMP's pixels use colors past the end of its \(paletteCount)-color palette") }
        return drawn == size.pixelCount ? try opaque(image) : image
    }

    /// A JPEG or PNG stream as the pixel data, read by that format's decoder; its size must be
    /// the one the BMP's header gives (which `info` and the planner used).
    private static func embedded(_ b: [UInt8], header: BMPHeader, options: LoadOptions, path: String?) throws -> Image {
        var inner = options
        inner.allowedFormats = [header.compression == .jpeg ? .jpeg : .png]
        let image = try Image.decode(Array(b[header.dataOffset...]), options: inner, path: path)
        guard image.size == header.size else {
            throw ImageError(.corrupt, path: path, reason: "the BMP's embedded picture is \(image.size) where its header says \(header.size)")
        }
        return image
    }

    /// `image` without its alpha channel.
    private static func opaque(_ image: Image) throws -> Image {
        try Image.make(size: image.size, hasAlpha: false) { writer in
            for y in 0..<image.height {
                let source = image.row(y), row = writer.row(y)
                for x in 0..<image.width {
                    (row[x * 3], row[x * 3 + 1], row[x * 3 + 2]) = (source[x * 4], source[x * 4 + 1], source[x * 4 + 2])
                }
            }
        }
    }
}
