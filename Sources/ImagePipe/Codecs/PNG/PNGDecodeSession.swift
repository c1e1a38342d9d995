import CSpng

/// One libspng decode of a PNG (`PNGDecoder`): the rows, and what a failure of libspng's means.
/// A failure is judged at its `load fail=` level: the file or its image data ending early is
/// `truncated`, other damage to the image data `error`, anything after the last row (the pixels
/// are whole) `warning`. Damage the level takes leaves the rows not decoded black.
struct PNGDecodeSession {
    let context: OpaquePointer
    let stream: PNGStream
    let options: LoadOptions
    let path: String?

    /// Throws unless libspng's `status` is success; `what` is the part of the file it was reading.
    func check(_ status: Int32, _ what: String) throws {
        guard status != 0 else { return }
        throw failure(status, what)
    }

    /// Why libspng's `status` came back: the stream's own failure, or the part it was reading.
    func failure(_ status: Int32, _ what: String) -> ImageError {
        stream.failure ?? ImageError(.corrupt, path: path, reason: "the PNG's \(what) cannot be read: \(Self.message(status))")
    }

    /// Decodes the rows in order, each into `row(y)`, telling `decoded` how many are done.
    func decodeRows(size: Size, layout: PNGRowLayout, row: (Int) throws -> UnsafeMutablePointer<UInt8>,
                    decoded: (Int) -> Void) throws {
        var samples = [UInt16](repeating: 0, count: layout.sixteen ? size.width * 4 : 0)
        var y = 0
        while y < size.height {
            if y % 64 == 0 { try options.checkDeadline(path: path) }
            let destination = try row(y)
            let status = layout.sixteen
                ? samples.withUnsafeMutableBufferPointer { buffer in
                    let status = spng_decode_row(context, buffer.baseAddress, layout.rowBytes)
                    layout.round(buffer.baseAddress!, into: destination)
                    return status
                }
                : spng_decode_row(context, destination, layout.rowBytes)
            guard status == 0 || status == SPNG_EOI.rawValue else {
                try judge(status, row: y, of: size.height)
                // Taken as it is: the rows from this one on stay black.
                for missing in y..<size.height {
                    (missing == y ? destination : try row(missing)).update(repeating: 0, count: size.width * layout.channels)
                    decoded(missing + 1)
                }
                return
            }
            y += 1
            decoded(y)
        }
    }

    /// An interlaced PNG, whose passes fill the picture out of order: decoded whole into
    /// libspng's own layout, then placed.
    func decodeWhole(size: Size, layout: PNGRowLayout) throws -> Image {
        var length = 0
        try check(spng_decoded_image_size(context, layout.format, &length), "size")
        let (bytes, overflow) = layout.rowBytes.multipliedReportingOverflow(by: size.height)
        guard !overflow, length == bytes else { throw ImageError(.tooLarge, path: path, reason: "the PNG's rows are \(length) bytes, not \(bytes)") }
        var buffer = [UInt8](repeating: 0, count: length)
        let status = buffer.withUnsafeMutableBytes { spng_decode_image(context, $0.baseAddress, length, layout.format, layout.flags) }
        if status != 0 { try judge(status, row: nil, of: size.height) } // taken: what is not decoded stays black
        return try Image.make(size: size, hasAlpha: layout.alpha) { writer in
            buffer.withUnsafeBytes { bytes in
                for y in 0..<size.height {
                    let source = bytes.baseAddress! + y * layout.rowBytes, row = writer.base + y * writer.rowStride
                    if layout.sixteen {
                        layout.round(source.assumingMemoryBound(to: UInt16.self), into: row)
                    } else {
                        row.update(from: source.assumingMemoryBound(to: UInt8.self), count: layout.rowBytes)
                    }
                }
            }
        }
    }

    /// Reads the chunks after the image data (EXIF and XMP may come there), judging their damage
    /// as a warning: the pixels are whole. A bad CRC here is a critical chunk's, damage: libspng
    /// checks the last IDAT chunk's CRC only when it moves past it, after the last row (PngSuite's
    /// xcsn0g01 was read), and it discards ancillary chunks with bad CRCs below `fail=warning`.
    func finishChunks() throws {
        let status = spng_decode_chunks(context)
        if status == SPNG_ECHUNK_CRC.rawValue, stream.failure == nil, options.refuses(.error) {
            throw ImageError(.corrupt, path: path, reason: "a chunk of the PNG's image data fails its CRC check")
        }
        guard status != 0, stream.failure != nil || options.refuses(.warning) else { return }
        throw failure(status, "chunks after its image data")
    }

    /// Throws the failure `status` at `row` (nil: somewhere in an interlaced picture's passes)
    /// unless the load's level takes damage of its kind.
    func judge(_ status: Int32, row: Int?, of height: Int) throws {
        if let failure = stream.failure { throw failure }
        let place = row.map { " after \($0) of its \(height) rows" } ?? ""
        let (level, reason): (FailOn, String) = switch status {
        case _ where stream.reachedEnd: (.truncated, "the file ends within the PNG's image data\(place)")
        case SPNG_EIDAT_TOO_SHORT.rawValue: (.truncated, "the PNG's image data ends early\(place)")
        case SPNG_EIDAT_STREAM.rawValue, SPNG_EZLIB.rawValue:
            (.error, "the PNG's compressed image data is damaged (it fails to inflate, or its check fails)\(place)")
        case SPNG_ECHUNK_CRC.rawValue: (.error, "a chunk of the PNG's image data fails its CRC check\(place)")
        default: (.error, "the PNG's image data is damaged\(place): \(Self.message(status))")
        }
        if options.refuses(level) { throw ImageError(.corrupt, path: path, reason: reason) }
    }

    private static func message(_ status: Int32) -> String { String(cString: spng_strerror(status)) }
}
