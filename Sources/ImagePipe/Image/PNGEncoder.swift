import CDeflate

/// PNG writing with libdeflate instead of gdk-pixbuf's zlib: the same format and the same
/// choices (8 bits per channel, a filter chosen per row by the least sum of absolute values, as
/// libpng's adaptive filtering does, deflate at the asked level), several times faster, and
/// output within a few percent of zlib's size at the same level. PNG encoding is most of the
/// cost of an avatar.
enum PNGEncoder {
    static func encode(_ image: Image, compression: Int, metadata: OutputMetadata = OutputMetadata(),
                       palette: PaletteQuantizer? = nil, cancellation: Cancellation? = nil) throws -> [UInt8] {
        let channels = image.channelCount
        let depth: UInt8
        let filtered: [UInt8]
        if let palette {
            depth = palette.palette.count <= 2 ? 1 : palette.palette.count <= 4 ? 2 : palette.palette.count <= 16 ? 4 : 8
            filtered = packedRows(palette, depth: Int(depth))
        } else {
            depth = 8
            guard let rows = filterRows(image, rowLength: image.width * channels, bytesPerPixel: channels, cancellation: cancellation) else {
                throw ImageError(.interrupted, reason: "stopped before it was finished; nothing written")
            }
            filtered = rows
        }
        let compressed = try zlib(filtered, level: compression)

        var png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        png.reserveCapacity(compressed.count + 64)
        var header: [UInt8] = []
        header.appendBigEndian(UInt32(image.width))
        header.appendBigEndian(UInt32(image.height))
        // palette, or RGBA or RGB; deflate, adaptive filters, no interlace
        header += [depth, palette != nil ? 3 : channels == 4 ? 6 : 2, 0, 0, 0]
        appendChunk("IHDR", header[...], to: &png)
        if let icc = metadata.icc {
            appendChunk("iCCP", (Array("ICC profile".utf8) + [0, 0] + (try zlib(icc, level: 9)))[...], to: &png)
        }
        if let palette {
            appendChunk("PLTE", palette.palette.flatMap { [$0.red, $0.green, $0.blue] }[...], to: &png)
            // Alpha of each entry up to the last that is not opaque.
            if let last = palette.palette.lastIndex(where: { $0.alpha < 255 }) {
                appendChunk("tRNS", palette.palette[...last].map(\.alpha)[...], to: &png)
            }
        }
        if let exif = metadata.exif { appendChunk("eXIf", exif[...], to: &png) }
        if let xmp = metadata.xmp {
            // iTXt: keyword, NUL, uncompressed, method 0, no language, NUL, no translated keyword, NUL, text
            appendChunk("iTXt", (Array("XML:com.adobe.xmp".utf8) + [0, 0, 0, 0, 0] + xmp)[...], to: &png)
        }
        appendChunk("IDAT", compressed[...], to: &png)
        appendChunk("IEND", [][...], to: &png)
        return png
    }

    /// zlib-wrapped deflate at `level` (0–12, libdeflate's scale; PNG's 0–9 mean the same there).
    static func zlib(_ data: [UInt8], level: Int) throws -> [UInt8] {
        guard let compressor = libdeflate_alloc_compressor(Int32(min(max(level, 0), 12))) else {
            throw ImageError(.unwritable, reason: "libdeflate could not allocate a compressor")
        }
        defer { libdeflate_free_compressor(compressor) }
        let bound = libdeflate_zlib_compress_bound(compressor, data.count)
        var compressed = [UInt8](repeating: 0, count: bound)
        let length = data.withUnsafeBytes { input in
            compressed.withUnsafeMutableBytes { output in
                libdeflate_zlib_compress(compressor, input.baseAddress, input.count, output.baseAddress, output.count)
            }
        }
        guard length > 0 else { throw ImageError(.unwritable, reason: "libdeflate could not compress the picture") }
        compressed.removeSubrange(length...)
        return compressed
    }

    /// Palette indices packed `depth` bits each, most significant first, each row after filter
    /// byte 0: libpng's advice for palette pictures, whose indices do not predict each other.
    private static func packedRows(_ palette: PaletteQuantizer, depth: Int) -> [UInt8] {
        let width = palette.size.width
        let rowLength = (width * depth + 7) / 8
        var output = [UInt8](repeating: 0, count: palette.size.height * (rowLength + 1))
        let perByte = 8 / depth
        for y in 0..<palette.size.height {
            let start = y * (rowLength + 1) + 1
            for x in 0..<width {
                let index = palette.indices[y * width + x]
                output[start + x / perByte] |= index << UInt8((perByte - 1 - x % perByte) * depth)
            }
        }
        return output
    }

    /// Each row prefixed with the filter byte of the filter that gives the least sum of absolute
    /// (signed) values. Nil when `cancellation` was cancelled meanwhile (checked every 32 rows:
    /// a few milliseconds of a 20-megapixel picture).
    private static func filterRows(_ image: Image, rowLength: Int, bytesPerPixel bpp: Int, cancellation: Cancellation?) -> [UInt8]? {
        var output = [UInt8](repeating: 0, count: image.height * (rowLength + 1))
        let zeros = [UInt8](repeating: 0, count: rowLength)
        var candidates = [[UInt8]](repeating: [UInt8](repeating: 0, count: rowLength), count: 5)
        let finished = output.withUnsafeMutableBufferPointer { out in
            zeros.withUnsafeBufferPointer { zeroRow in
                for y in 0..<image.height {
                    if y % 32 == 0, cancellation?.isCancelled == true { return false }
                    let row = image.row(y)
                    let above = y > 0 ? image.row(y - 1) : zeroRow
                    var best = 0, bestScore = Int.max
                    for filter in 0..<5 {
                        let score = candidates[filter].withUnsafeMutableBufferPointer { target in
                            apply(filter, row: row, above: above, bpp: bpp, into: target)
                        }
                        if score < bestScore { (best, bestScore) = (filter, score) }
                    }
                    let start = y * (rowLength + 1)
                    out[start] = UInt8(best)
                    candidates[best].withUnsafeBufferPointer { chosen in
                        (out.baseAddress! + start + 1).update(from: chosen.baseAddress!, count: rowLength)
                    }
                }
                return true
            }
        }
        return finished ? output : nil
    }

    /// Writes one filter's output for a row and returns its score.
    @inline(__always)
    private static func apply(_ filter: Int, row: UnsafeBufferPointer<UInt8>, above: UnsafeBufferPointer<UInt8>,
                              bpp: Int, into target: UnsafeMutableBufferPointer<UInt8>) -> Int {
        var score = 0
        for i in 0..<row.count {
            let x = row[i]
            let a = i >= bpp ? row[i - bpp] : 0
            let b = above[i]
            let value: UInt8
            switch filter {
            case 0: value = x
            case 1: value = x &- a
            case 2: value = x &- b
            case 3: value = x &- UInt8((Int(a) + Int(b)) / 2)
            default:
                let c = i >= bpp ? above[i - bpp] : 0
                value = x &- paeth(a, b, c)
            }
            target[i] = value
            score += value < 128 ? Int(value) : 256 - Int(value)
        }
        return score
    }

    @inline(__always)
    private static func paeth(_ a: UInt8, _ b: UInt8, _ c: UInt8) -> UInt8 {
        let p = Int(a) + Int(b) - Int(c)
        let pa = abs(p - Int(a)), pb = abs(p - Int(b)), pc = abs(p - Int(c))
        return pa <= pb && pa <= pc ? a : pb <= pc ? b : c
    }

    private static func appendChunk(_ type: String, _ data: ArraySlice<UInt8>, to png: inout [UInt8]) {
        png.appendBigEndian(UInt32(data.count))
        let typeBytes = Array(type.utf8)
        png += typeBytes
        png += data
        var crc = typeBytes.withUnsafeBytes { libdeflate_crc32(0, $0.baseAddress, $0.count) }
        crc = data.withUnsafeBytes { libdeflate_crc32(crc, $0.baseAddress, $0.count) }
        png.appendBigEndian(crc)
    }
}

extension [UInt8] {
    mutating func appendBigEndian(_ value: UInt32) {
        append(contentsOf: [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)])
    }
}
