import CTiffCodec

/// TIFF writing through libtiff directly, into memory: 8-bit RGB, RGBA only when the picture has
/// alpha (unassociated, as ImagePipe holds it: EXTRASAMPLE_UNASSALPHA), or one gray sample for a
/// gray picture; in strips of about 64 KiB or in square tiles; uncompressed, deflate or LZW (with
/// the horizontal predictor) or JPEG. gdk-pixbuf's TIFF saver wrote every picture as
/// uncompressed RGBA. The ICC profile and XMP packet go in their tags; the resolution is left unset.
enum TIFFEncoder {
    /// About how many bytes of samples one strip holds: libtiff's own advice is 8 KiB, libvips
    /// writes strips of 8 rows of any size; 64 KiB keeps the strip table short and the
    /// compressors' windows full, and the encoder's buffer small.
    static let stripBytes = 64 << 10

    /// `gray`: one sample a pixel, from the red channel (the caller knows R = G = B and that no
    /// RGB profile is to be embedded). `level` is deflate's 0–9, `quality` JPEG's 1–100, `tile`
    /// the side of square tiles (a multiple of 16) or nil for strips.
    static func encode(_ image: Image, gray: Bool, compression: TIFFCompression, level: Int, quality: Int, tile: Int?,
                       metadata: OutputMetadata, cancellation: Cancellation?) throws -> [UInt8] {
        let output = EncoderOutput()
        try encode(RowFeed(image, cancellation: cancellation), gray: gray, compression: compression, level: level, quality: quality,
                   tile: tile, metadata: metadata, to: output)
        return output.bytes
    }

    /// The same from rows read in order, a strip's or a band of tiles' worth at a time, into
    /// `output`: into its file directly when it is a regular file (libtiff writes the header
    /// last), else made in memory and written whole.
    static func encode(_ rows: RowFeed, gray: Bool, compression: TIFFCompression, level: Int, quality: Int, tile: Int?,
                       metadata: OutputMetadata, to output: EncoderOutput) throws {
        let size = rows.size
        let samples = gray ? 1 : rows.channels
        let rowBytes = size.width * samples
        var rowsPerStrip = max(1, stripBytes / rowBytes)
        // A JPEG strip holds whole rows of 16-pixel blocks (4:2:0 YCbCr), unless it is the only one.
        if compression == .jpeg { rowsPerStrip = max(16, rowsPerStrip / 16 * 16) }
        rowsPerStrip = min(rowsPerStrip, size.height)
        let codec: Int32 = switch compression {
        case .none: COMPRESSION_NONE
        case .deflate: COMPRESSION_ADOBE_DEFLATE
        case .lzw: COMPRESSION_LZW
        case .jpeg: COMPRESSION_JPEG
        }
        // A tile no larger than the picture needs (its longer side, in whole 16s): the rest is padding.
        let tile = tile.map { min($0, (max(size.width, size.height) + 15) / 16 * 16) }
        let file = output.seekable ? output.descriptor : nil
        let writer = try open(size, samples: samples, codec: codec, level: level, quality: quality, tile: tile,
                              rowsPerStrip: rowsPerStrip, metadata: metadata, descriptor: file ?? -1)
        defer { imagepipe_tiff_writer_free(writer) }
        if let tile {
            try writeTiles(rows, gray: gray, samples: samples, side: tile, to: writer)
        } else {
            try writeStrips(rows, gray: gray, samples: samples, rowsPerStrip: rowsPerStrip, to: writer)
        }
        var bytes: UnsafePointer<UInt8>?
        var count = 0
        guard imagepipe_tiff_writer_finish(writer, &bytes, &count) == 0 else { throw failure(writer) }
        // Written to the file already, when it went there.
        if file == nil { try output.write(UnsafeRawBufferPointer(start: bytes, count: count)) }
    }

    private static func open(_ size: Size, samples: Int, codec: Int32, level: Int, quality: Int, tile: Int?, rowsPerStrip: Int,
                             metadata: OutputMetadata, descriptor: Int32) throws -> OpaquePointer {
        guard size.width <= Int(UInt32.max), size.height <= Int(UInt32.max) else {
            throw ImageError(.unwritable, reason: "a TIFF cannot hold a \(size) picture")
        }
        var failure = imagepipe_tiff_messages()
        let icc = metadata.icc ?? [], xmp = metadata.xmp ?? []
        let writer = icc.withUnsafeBufferPointer { icc in
            xmp.withUnsafeBufferPointer { xmp in
                var encoding = imagepipe_tiff_encoding(
                    width: UInt32(size.width), height: UInt32(size.height), samples: UInt16(samples), compression: UInt16(codec),
                    deflate_level: Int32(min(max(level, 0), 9)), jpeg_quality: Int32(min(max(quality, 1), 100)),
                    tile: UInt32(tile ?? 0), rows_per_strip: UInt32(rowsPerStrip),
                    icc: icc.baseAddress, icc_size: UInt32(icc.count), xmp: xmp.baseAddress, xmp_size: UInt32(xmp.count))
                return imagepipe_tiff_writer_open(&encoding, descriptor, &failure)
            }
        }
        guard let writer else {
            throw ImageError(.unwritable, reason: "libtiff could not start the TIFF: \(TIFFDecoder.text(of: failure.error))")
        }
        return writer
    }

    private static func failure(_ writer: OpaquePointer) -> ImageError {
        let said = imagepipe_tiff_writer_messages(writer).pointee
        let reason = said.errors > 0 ? TIFFDecoder.text(of: said.error) : "it gave no reason"
        return ImageError(.unwritable, reason: "libtiff could not write the TIFF: \(reason)")
    }

    /// Copies `columns` pixels of `row` from `x` into `to`, `samples` bytes each (`channels` a pixel in `row`).
    @inline(__always)
    private static func copy(_ row: UnsafePointer<UInt8>, channels: Int, x: Int, columns: Int, gray: Bool, samples: Int,
                             to: UnsafeMutablePointer<UInt8>) {
        let from = row + x * channels
        if gray {
            for column in 0..<columns { to[column] = from[column * channels] }
        } else {
            to.update(from: from, count: columns * samples)
        }
    }

    private static func writeStrips(_ rows: RowFeed, gray: Bool, samples: Int, rowsPerStrip: Int, to writer: OpaquePointer) throws {
        let size = rows.size, rowBytes = size.width * samples
        let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: rowBytes * rowsPerStrip)
        defer { buffer.deallocate() }
        var strip = 0
        for first in stride(from: 0, to: size.height, by: rowsPerStrip) {
            let count = min(rowsPerStrip, size.height - first)
            for row in 0..<count {
                guard let pixels = rows.row(first + row) else { throw rows.stopped() }
                copy(pixels, channels: rows.channels, x: 0, columns: size.width, gray: gray, samples: samples, to: buffer + row * rowBytes)
            }
            guard imagepipe_tiff_write_chunk(writer, UInt32(strip), buffer, count * rowBytes) == 0 else { throw failure(writer) }
            strip += 1
        }
    }

    /// Tiles left to right, top to bottom, from a band of `side` rows gathered first; those at the
    /// right and bottom edges padded with zeros.
    private static func writeTiles(_ rows: RowFeed, gray: Bool, samples: Int, side: Int, to writer: OpaquePointer) throws {
        let size = rows.size
        let bandRowBytes = size.width * samples, tileBytes = side * side * samples
        let band = UnsafeMutablePointer<UInt8>.allocate(capacity: bandRowBytes * side)
        let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: tileBytes)
        defer {
            band.deallocate()
            buffer.deallocate()
        }
        var index = 0
        for top in stride(from: 0, to: size.height, by: side) {
            let count = min(side, size.height - top)
            for row in 0..<count {
                guard let pixels = rows.row(top + row) else { throw rows.stopped() }
                copy(pixels, channels: rows.channels, x: 0, columns: size.width, gray: gray, samples: samples, to: band + row * bandRowBytes)
            }
            for left in stride(from: 0, to: size.width, by: side) {
                buffer.initialize(repeating: 0, count: tileBytes)
                let columns = min(side, size.width - left)
                for row in 0..<count {
                    (buffer + row * side * samples).update(from: band + row * bandRowBytes + left * samples, count: columns * samples)
                }
                guard imagepipe_tiff_write_chunk(writer, UInt32(index), buffer, tileBytes) == 0 else { throw failure(writer) }
                index += 1
            }
        }
    }
}
