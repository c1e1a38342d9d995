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
        let samples = gray ? 1 : image.channelCount
        let rowBytes = image.width * samples
        var rowsPerStrip = max(1, stripBytes / rowBytes)
        // A JPEG strip holds whole rows of 16-pixel blocks (4:2:0 YCbCr), unless it is the only one.
        if compression == .jpeg { rowsPerStrip = max(16, rowsPerStrip / 16 * 16) }
        rowsPerStrip = min(rowsPerStrip, image.height)
        let codec: Int32 = switch compression {
        case .none: COMPRESSION_NONE
        case .deflate: COMPRESSION_ADOBE_DEFLATE
        case .lzw: COMPRESSION_LZW
        case .jpeg: COMPRESSION_JPEG
        }
        // A tile no larger than the picture needs (its longer side, in whole 16s): the rest is padding.
        let tile = tile.map { min($0, (max(image.width, image.height) + 15) / 16 * 16) }
        let writer = try open(image, samples: samples, codec: codec, level: level, quality: quality, tile: tile,
                              rowsPerStrip: rowsPerStrip, metadata: metadata)
        defer { imagepipe_tiff_writer_free(writer) }
        if let tile {
            try writeTiles(image, gray: gray, samples: samples, side: tile, to: writer, cancellation: cancellation)
        } else {
            try writeStrips(image, gray: gray, samples: samples, rowsPerStrip: rowsPerStrip, to: writer, cancellation: cancellation)
        }
        var bytes: UnsafePointer<UInt8>?
        var count = 0
        guard imagepipe_tiff_writer_finish(writer, &bytes, &count) == 0, let bytes else { throw failure(writer) }
        return Array(UnsafeBufferPointer(start: bytes, count: count))
    }

    private static func open(_ image: Image, samples: Int, codec: Int32, level: Int, quality: Int, tile: Int?, rowsPerStrip: Int,
                             metadata: OutputMetadata) throws -> OpaquePointer {
        guard image.width <= Int(UInt32.max), image.height <= Int(UInt32.max) else {
            throw ImageError(.unwritable, reason: "a TIFF cannot hold a \(image.size) picture")
        }
        var failure = imagepipe_tiff_messages()
        let icc = metadata.icc ?? [], xmp = metadata.xmp ?? []
        let writer = icc.withUnsafeBufferPointer { icc in
            xmp.withUnsafeBufferPointer { xmp in
                var encoding = imagepipe_tiff_encoding(
                    width: UInt32(image.width), height: UInt32(image.height), samples: UInt16(samples), compression: UInt16(codec),
                    deflate_level: Int32(min(max(level, 0), 9)), jpeg_quality: Int32(min(max(quality, 1), 100)),
                    tile: UInt32(tile ?? 0), rows_per_strip: UInt32(rowsPerStrip),
                    icc: icc.baseAddress, icc_size: UInt32(icc.count), xmp: xmp.baseAddress, xmp_size: UInt32(xmp.count))
                return imagepipe_tiff_writer_open(&encoding, &failure)
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

    /// Copies `columns` pixels of row `y` from `x` into `to`, `samples` bytes each.
    @inline(__always)
    private static func copy(_ image: Image, y: Int, x: Int, columns: Int, gray: Bool, samples: Int, to: UnsafeMutablePointer<UInt8>) {
        let from = image.rowStart(y) + x * image.channelCount
        if gray {
            for column in 0..<columns { to[column] = from[column * image.channelCount] }
        } else {
            to.update(from: from, count: columns * samples)
        }
    }

    private static func writeStrips(_ image: Image, gray: Bool, samples: Int, rowsPerStrip: Int, to writer: OpaquePointer,
                                    cancellation: Cancellation?) throws {
        let rowBytes = image.width * samples
        let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: rowBytes * rowsPerStrip)
        defer { buffer.deallocate() }
        var strip = 0
        for first in stride(from: 0, to: image.height, by: rowsPerStrip) {
            if cancellation?.isCancelled == true { throw Cancellation.stopped(path: nil) }
            let rows = min(rowsPerStrip, image.height - first)
            for row in 0..<rows {
                copy(image, y: first + row, x: 0, columns: image.width, gray: gray, samples: samples, to: buffer + row * rowBytes)
            }
            guard imagepipe_tiff_write_chunk(writer, UInt32(strip), buffer, rows * rowBytes) == 0 else { throw failure(writer) }
            strip += 1
        }
    }

    /// Tiles left to right, top to bottom; those at the right and bottom edges padded with zeros.
    private static func writeTiles(_ image: Image, gray: Bool, samples: Int, side: Int, to writer: OpaquePointer,
                                   cancellation: Cancellation?) throws {
        let tileBytes = side * side * samples
        let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: tileBytes)
        defer { buffer.deallocate() }
        var index = 0
        for top in stride(from: 0, to: image.height, by: side) {
            for left in stride(from: 0, to: image.width, by: side) {
                if cancellation?.isCancelled == true { throw Cancellation.stopped(path: nil) }
                buffer.initialize(repeating: 0, count: tileBytes)
                let rows = min(side, image.height - top), columns = min(side, image.width - left)
                for row in 0..<rows {
                    copy(image, y: top + row, x: left, columns: columns, gray: gray, samples: samples, to: buffer + row * side * samples)
                }
                guard imagepipe_tiff_write_chunk(writer, UInt32(index), buffer, tileBytes) == 0 else { throw failure(writer) }
                index += 1
            }
        }
    }
}
