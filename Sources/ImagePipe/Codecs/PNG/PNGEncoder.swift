import CDeflate
import CZlib

/// PNG writing with libdeflate instead of gdk-pixbuf's zlib: the same format and the same
/// choices (8 bits per channel, a filter chosen per row by the least sum of absolute values, as
/// libpng's adaptive filtering does, deflate at the asked level), several times faster, and
/// output within a few percent of zlib's size at the same level. PNG encoding is most of the
/// cost of an avatar.
///
/// libdeflate compresses only a whole buffer at once, so it needs every filtered row in memory
/// (a copy of the picture) and room for the compressed stream. Above `streamingThreshold`
/// bytes of filtered rows, the rows are filtered a strip at a time and streamed through zlib
/// into IDAT chunks instead: the encoder then holds the picture, the PNG it is making and a
/// strip, whatever the picture's size.
enum PNGEncoder {
    /// Filtered rows up to this many bytes go through libdeflate whole (every avatar and
    /// thumbnail: 4 MiB is a 1024x1024 RGBA picture); larger pictures are streamed.
    static let streamingThreshold = 4 << 20
    static func encode(_ image: Image, compression: Int, metadata: OutputMetadata = OutputMetadata(),
                       palette: PaletteQuantizer? = nil, cancellation: Cancellation? = nil) throws -> [UInt8] {
        guard let palette else {
            let output = EncoderOutput()
            try encode(RowFeed(image, cancellation: cancellation), compression: compression, metadata: metadata, to: output)
            return output.bytes
        }
        let depth: UInt8 = palette.palette.count <= 2 ? 1 : palette.palette.count <= 4 ? 2 : palette.palette.count <= 16 ? 4 : 8
        var png = try start(size: image.size, depth: depth, colorType: 3, metadata: metadata, palette: palette)
        appendChunk("IDAT", try zlib(packedRows(palette, depth: Int(depth)), level: compression)[...], to: &png)
        appendChunk("IEND", [][...], to: &png)
        return png
    }

    /// RGB or RGBA rows, read in order, into `output`: filtered whole and deflated by libdeflate
    /// when small, else a strip at a time through zlib, the file written on as its IDAT chunks come.
    static func encode(_ rows: RowFeed, compression: Int, metadata: OutputMetadata, to output: EncoderOutput) throws {
        var png = try start(size: rows.size, depth: 8, colorType: rows.channels == 4 ? 6 : 2, metadata: metadata, palette: nil)
        let rowLength = rows.size.width * rows.channels
        if rows.size.height * (rowLength + 1) <= streamingThreshold {
            let compressed = try zlib(filterRows(rows, rowLength: rowLength), level: compression)
            png.reserveCapacity(png.count + compressed.count + 24)
            appendChunk("IDAT", compressed[...], to: &png)
        } else {
            try streamRows(rows, rowLength: rowLength, level: compression, into: &png, flushingTo: output)
        }
        appendChunk("IEND", [][...], to: &png)
        try output.write(png)
    }

    /// The signature and every chunk before the pixels.
    private static func start(size: Size, depth: UInt8, colorType: UInt8, metadata: OutputMetadata, palette: PaletteQuantizer?) throws -> [UInt8] {
        var png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        var header: [UInt8] = []
        header.appendBigEndian(UInt32(size.width))
        header.appendBigEndian(UInt32(size.height))
        // deflate, adaptive filters, no interlace
        header += [depth, colorType, 0, 0, 0]
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
        if let exif = metadata.describing(size).exif { appendChunk("eXIf", exif[...], to: &png) }
        if let xmp = metadata.xmp {
            // iTXt: keyword, NUL, uncompressed, method 0, no language, NUL, no translated keyword, NUL, text
            appendChunk("iTXt", (Array("XML:com.adobe.xmp".utf8) + [0, 0, 0, 0, 0] + xmp)[...], to: &png)
        }
        return png
    }

    /// Row after row of `rows` filtered into `output` (`rowLength + 1` bytes each, from `first`),
    /// the row above kept aside, since a streamed run may rewrite it once the next is asked for.
    private struct RowFilter {
        let rowLength: Int
        let bpp: Int
        var above: [UInt8]
        var candidates: [[UInt8]]

        init(rowLength: Int, bpp: Int) {
            self.rowLength = rowLength
            self.bpp = bpp
            above = [UInt8](repeating: 0, count: rowLength)
            candidates = [[UInt8]](repeating: [UInt8](repeating: 0, count: rowLength), count: 5)
        }

        mutating func filter(_ rows: RowFeed, _ y: Int, into target: UnsafeMutablePointer<UInt8>) throws {
            guard let pixels = rows.row(y) else { throw rows.stopped() }
            let row = UnsafeBufferPointer(start: pixels, count: rowLength)
            above.withUnsafeBufferPointer { above in filterRow(row, above: above, bpp: bpp, candidates: &candidates, into: target) }
            above.withUnsafeMutableBufferPointer { $0.baseAddress!.update(from: pixels, count: rowLength) }
        }
    }

    /// What `streamRows` holds for a `height`-row picture of rows of `rowLength` bytes: the row
    /// above, the five filters' candidates and a strip of filtered rows (a megabyte of them, or
    /// one row when a row is longer), then the deflated chunk, the file's bytes waiting for their
    /// megabyte and zlib's own state. A 1x179M picture turned has 537 MB rows: these are most of
    /// its run's memory; a hundred PNGs written beside one another from a `branch` hold some
    /// 2.6 MiB each (`/usr/bin/time`: 684 MiB, where an estimate without the buffers said 426M).
    static func streamedHeldBytes(rowLength: Int, height: Int) -> Int {
        let stripRows = stripRows(rowLength: rowLength, height: height)
        let (six, overflow) = rowLength.multipliedReportingOverflow(by: 6)
        let (strip, overflow2) = stripRows.multipliedReportingOverflow(by: rowLength + 1)
        // The chunk, the file's bytes up to a megabyte and a chunk more, and deflate's window and
        // hash tables at zlib's defaults (windowBits 15, memLevel 8: 256 KiB, as zlib.h says).
        let buffers = chunkSize + (1 << 20) + chunkSize + (1 << 18)
        return overflow || overflow2 ? Int.max / 8 : min(Int.max / 8, six + strip + buffers)
    }

    /// Rows filtered and deflated at a time: a megabyte of them, at least one.
    private static func stripRows(rowLength: Int, height: Int) -> Int { max(1, min(height, (1 << 20) / (rowLength + 1))) }

    /// Filters the rows a strip at a time and deflates them with zlib into IDAT chunks of at
    /// most `chunkSize` bytes appended to `png`, which goes to `output` whenever it holds 1 MiB.
    private static func streamRows(_ rows: RowFeed, rowLength: Int, level: Int, into png: inout [UInt8], flushingTo output: EncoderOutput) throws {
        let failed = ImageError(.unwritable, reason: "zlib could not compress the picture")
        var stream = z_stream()
        // libdeflate's levels above 9 are zlib's 9.
        guard deflateInit_(&stream, Int32(min(max(level, 0), 9)), ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else { throw failed }
        defer { deflateEnd(&stream) }
        let height = rows.size.height
        let stripRows = stripRows(rowLength: rowLength, height: height)
        var strip = [UInt8](repeating: 0, count: stripRows * (rowLength + 1))
        var compressed = [UInt8](repeating: 0, count: chunkSize)
        var filter = RowFilter(rowLength: rowLength, bpp: rows.channels)
        var y = 0
        while y < height {
            let count = min(stripRows, height - y)
            try strip.withUnsafeMutableBufferPointer { out in
                for row in 0..<count { try filter.filter(rows, y + row, into: out.baseAddress! + row * (rowLength + 1)) }
            }
            y += count
            let finishing = y == height
            try strip.withUnsafeMutableBufferPointer { input in
                stream.next_in = input.baseAddress
                stream.avail_in = UInt32(count * (rowLength + 1))
                while true {
                    let status = compressed.withUnsafeMutableBufferPointer { output in
                        stream.next_out = output.baseAddress
                        stream.avail_out = UInt32(output.count)
                        return deflate(&stream, finishing ? Z_FINISH : Z_NO_FLUSH)
                    }
                    guard status == Z_OK || status == Z_STREAM_END || status == Z_BUF_ERROR else { throw failed }
                    let produced = chunkSize - Int(stream.avail_out)
                    if produced > 0 { appendChunk("IDAT", compressed[..<produced], to: &png) }
                    if png.count >= 1 << 20 {
                        try output.write(png)
                        png.removeAll(keepingCapacity: true)
                    }
                    // Room left over means zlib took the whole strip; finishing ends with the stream.
                    if finishing ? status == Z_STREAM_END : stream.avail_out > 0 { break }
                }
            }
        }
    }

    /// The most bytes of one streamed IDAT chunk.
    private static let chunkSize = 1 << 18

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
    /// (signed) values.
    private static func filterRows(_ rows: RowFeed, rowLength: Int) throws -> [UInt8] {
        var output = [UInt8](repeating: 0, count: rows.size.height * (rowLength + 1))
        var filter = RowFilter(rowLength: rowLength, bpp: rows.channels)
        try output.withUnsafeMutableBufferPointer { out in
            for y in 0..<rows.size.height { try filter.filter(rows, y, into: out.baseAddress! + y * (rowLength + 1)) }
        }
        return output
    }

    /// `row` after its filter byte, at `target`: the filter with the least score.
    @inline(__always)
    private static func filterRow(_ row: UnsafeBufferPointer<UInt8>, above: UnsafeBufferPointer<UInt8>, bpp: Int,
                                  candidates: inout [[UInt8]], into target: UnsafeMutablePointer<UInt8>) {
        var best = 0, bestScore = Int.max
        for filter in 0..<5 {
            let score = candidates[filter].withUnsafeMutableBufferPointer { buffer in
                apply(filter, row: row, above: above, bpp: bpp, into: buffer)
            }
            if score < bestScore { (best, bestScore) = (filter, score) }
        }
        target[0] = UInt8(best)
        candidates[best].withUnsafeBufferPointer { chosen in
            (target + 1).update(from: chosen.baseAddress!, count: row.count)
        }
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

    static func appendChunk(_ type: String, _ data: ArraySlice<UInt8>, to png: inout [UInt8]) {
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
