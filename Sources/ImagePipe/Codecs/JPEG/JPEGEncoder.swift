import CJPEGStrict

/// JPEG writing through libjpeg directly (gdk-pixbuf's saver takes only a quality and always
/// subsamples chroma 4:2:0): chroma subsampling, progressive scans, optimised Huffman tables,
/// and the ICC profile (in APP2 chunks), EXIF and XMP (APP1).
enum JPEGEncoder {
    /// Encodes `rows` (RGB) into `output`; a whole picture's encode that is stopped
    /// (`RowFeed.cancellation`) ends with the `stopped` error.
    static func encode(_ rows: RowFeed, quality: Int, chroma: ChromaSubsampling, gray: Bool, progressive: Bool, optimizeCoding: Bool,
                       metadata: OutputMetadata, to output: EncoderOutput) throws {
        // libjpeg asks for rows only when they may not be there yet; a whole picture's stop is asked for alike.
        let rowsReady: RowFeed.RowsReady? = rows.rowsReady ?? rows.cancellation.map { stop in { needed in stop.isCancelled ? 0 : needed } }
        do {
            try encode(rows.pixels, size: rows.size, rowStride: rows.rowStride, ringRows: rows.ringRows, quality: quality, chroma: chroma,
                       gray: gray, progressive: progressive, optimizeCoding: optimizeCoding, metadata: metadata, rowsReady: rowsReady, to: output)
        } catch where rows.cancellation?.isCancelled == true {
            throw Cancellation.stopped(path: nil)
        }
    }

    /// Encodes RGB rows of `rowStride` bytes; with `rowsReady`, rows still being made (the
    /// streamed run): each is read only after `rowsReady` has said it is there, and when it asks
    /// for `needed` rows every row before `needed - 1` is written. With `ringRows`, `pixels` is a
    /// ring of that many rows (row y in slot y % ringRows). Gray rows (R = G
    /// = B, as a stage said: `ImageMetadata.grayOnly`) are written as one gray component, as
    /// libvips and ImageMagick write gray pictures (5 % smaller at quality 90), unless an RGB profile is to
    /// be embedded (a gray JPEG cannot carry one). The file goes to `output` 64 KiB at a time as
    /// libjpeg makes it; what went into memory is returned.
    @discardableResult
    static func encode(_ pixels: UnsafePointer<UInt8>, size: Size, rowStride: Int, ringRows: Int = 0, quality: Int, chroma: ChromaSubsampling,
                       gray: Bool, progressive: Bool, optimizeCoding: Bool, metadata: OutputMetadata, rowsReady: RowFeed.RowsReady?,
                       to output: EncoderOutput = EncoderOutput()) throws -> [UInt8] {
        let subsampling: Int32 = switch chroma.resolved(quality: quality) {
        case .c422: 422
        case .c444: 444
        default: 420
        }
        var unused: UnsafeMutablePointer<UInt8>?
        var length: UInt = 0
        let drain = Drain(output)
        var message = [CChar](repeating: 0, count: 256)
        let count = message.count
        func with(_ bytes: [UInt8]?, _ body: (UnsafePointer<UInt8>?, Int) -> Int32) -> Int32 {
            guard let bytes else { return body(nil, 0) }
            return bytes.withUnsafeBufferPointer { body($0.baseAddress, $0.count) }
        }
        // libjpeg calls `ready` with a pointer to `rowsReady` as its context; no callback when all rows are there.
        let ready: (@convention(c) (UnsafeMutableRawPointer?, Int32) -> Int32)? = rowsReady == nil ? nil : { context, needed in
            Int32(clamping: context!.assumingMemoryBound(to: RowFeed.RowsReady?.self).pointee!(Int(needed)))
        }
        let drained: @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<UInt8>?, Int) -> Int32 = { context, bytes, size in
            let drain = Unmanaged<Drain>.fromOpaque(context!).takeUnretainedValue()
            do {
                try drain.output.write(UnsafeRawBufferPointer(start: bytes, count: size))
                return 1
            } catch {
                drain.failure = error
                return 0
            }
        }
        let status = withUnsafePointer(to: rowsReady) { context in
            with(metadata.icc) { icc, iccSize in
                with(metadata.describing(size).exif) { exif, exifSize in
                    with(metadata.xmp) { xmp, xmpSize in
                        imagepipe_jpeg_encode(pixels, Int32(size.width), Int32(size.height), Int32(rowStride), Int32(ringRows),
                                              Int32(min(max(quality, 1), 100)), subsampling, gray && metadata.icc == nil ? 1 : 0,
                                              progressive ? 1 : 0, optimizeCoding ? 1 : 0,
                                              icc, iccSize, exif, exifSize, xmp, xmpSize, ready, UnsafeMutableRawPointer(mutating: context),
                                              drained, Unmanaged.passUnretained(drain).toOpaque(), &unused, &length, &message, count)
                    }
                }
            }
        }
        withExtendedLifetime(drain) {}
        if let failure = drain.failure { throw failure }
        guard status == 0 else {
            let reason = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw ImageError(.unwritable, reason: "libjpeg could not encode the picture: \(reason)")
        }
        return output.bytes
    }

    /// Where libjpeg's bytes go, and the first failure to write them.
    private final class Drain {
        let output: EncoderOutput
        var failure: (any Error)?
        init(_ output: EncoderOutput) { self.output = output }
    }
}
