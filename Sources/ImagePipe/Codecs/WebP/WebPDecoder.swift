import CWebP

/// WebP decoded by libwebp's own incremental decoder: the file read once more, 64 KiB at a
/// time, and the rows handed on as libwebp finishes them, so a streamed run's stages and encoder
/// work while the rest decodes. libwebp writes into one picture-sized buffer (it has no ring), so
/// a streamed WebP holds its decoded picture whole; the stages' and the encoder's memory does not
/// grow with it. Every VP8 or VP8L error is an error and data cut short is `truncated`, judged at
/// the `load fail=` level; the rows a lenient level takes but libwebp could not decode are black.
/// The EXIF orientation is applied and the ICC profile converted, from the chunks the walk found
/// (`MetadataScanner.walk`). An animation's first frame decodes the same way, placed on its canvas.
enum WebPDecoder {
    /// The header of a WebP, from its chunk headers alone.
    static func header(of input: EncodedInput, path: String?) throws(ImageError) -> ImageHeader {
        let chunks = try WebPChunks(input, path: path)
        let size = try stillSize(chunks, path: path)
        let orientation = ExifOrientation.parse(exif: try MetadataScanner.walk(input, format: .webp).exif)
        return ImageHeader(storedSize: size, format: .webp, orientation: orientation,
                           frameCount: chunks.animated ? max(1, chunks.frameCount) : 1, rowsInOrder: !chunks.hasAlpha && !chunks.animated)
    }

    /// The picture (an animation's first frame on its canvas), turned upright and color managed;
    /// or, with a `handoff` that takes rows, the picture a streamed run read as it was decoded.
    static func decode(_ input: EncodedInput, options: LoadOptions, path: String?, handoff: RowHandoff? = nil) throws -> Image {
        let chunks = try WebPChunks(input, path: path)
        let size = try stillSize(chunks, path: path)
        try ImageHeader(storedSize: size, format: .webp).checkPixels(limit: options.maxPixels, path: path)
        var metadata = try MetadataScanner.walk(input, format: .webp)
        let turn = options.applyOrientation ? ExifOrientation.parse(exif: metadata.exif) : 1
        metadata.orientationApplied = turn != 1
        let decoded: Image
        if chunks.animated {
            decoded = try firstFrame(of: input, chunks: chunks, options: options, path: path)
        } else {
            // Only opaque rows go to a streamed run: its rows are RGB.
            let stream = chunks.hasAlpha ? nil : handoff
            if let stream {
                // The band is the whole picture: its reader holds it all, as libwebp writes it.
                let ring = stream.started(RowHandoff.Start(size: size, rowStride: RowHandoff.Start.rowStride(width: size.width),
                                                           channels: 3, metadata: metadata, bandRows: size.height))
                guard ring == 0 || stream.declined else {
                    stream.failing()
                    throw ImageError(.tooLarge, path: path, reason: "a WebP is decoded into one picture, not a ring of \(ring) rows")
                }
            }
            decoded = try decodeStill(input, chunks: chunks, size: size, options: options, path: path,
                                      handoff: stream.flatMap { $0.declined ? nil : $0 })
            if let stream, !stream.declined { return decoded }
        }
        return try Image.colorManaged(decoded.orientedByExif(turn), metadata: metadata, options: options, path: path)
    }

    /// Refuses an animation whose file is cut short, as its `fail=` level says: only its first
    /// frame is decoded for a still picture, so a cut in a later frame would pass unseen (as a cut
    /// AVIF sequence would). Cut inside a frame, or where no chunk says what is missing, it is
    /// `truncated`; inside the metadata after the frames (EXIF, XMP), `warning`, as for a still WebP.
    private static func checkCut(_ chunks: WebPChunks, options: LoadOptions, path: String?) throws {
        guard let stated = chunks.statedLength else { return }
        let within = chunks.cutInside
        let inMetadata = within.map { !["ANMF", "ANIM", "VP8X", "ICCP", "ALPH", "VP8 ", "VP8L"].contains($0) } ?? false
        guard options.refuses(inMetadata ? .warning : .truncated) else { return }
        let place = within == "ANMF" ? " within frame \(chunks.frameCount - 1)" : within.map { " within its \($0.filter { $0 != " " }) chunk" } ?? ""
        throw ImageError(.corrupt, path: path, reason: "the animated WebP is cut short: the file ends\(place), at \(chunks.length) of the \(stated) bytes its header states")
    }

    /// The size a still WebP (or an animation's canvas) has, or why it has none.
    private static func stillSize(_ chunks: WebPChunks, path: String?) throws(ImageError) -> Size {
        guard let size = chunks.size, size.width > 0, size.height > 0 else {
            if let stated = chunks.statedLength {
                throw ImageError(.corrupt, path: path, reason: "the WebP data is truncated (\(chunks.length) of the \(stated) bytes its header states)")
            }
            throw ImageError(.corrupt, path: path, reason: "the WebP holds no image data whose size libwebp can read")
        }
        return size
    }

    /// An animated WebP's first frame, cut out as a still WebP (`FirstFrame`) and decoded, on
    /// the canvas where it sits.
    private static func firstFrame(of input: EncodedInput, chunks whole: WebPChunks, options: LoadOptions, path: String?) throws -> Image {
        let bytes: [UInt8]
        switch input {
        case let .bytes(whole): bytes = whole
        case let .file(file): bytes = try file.readAll()
        }
        let frame = try FirstFrame(webp: bytes, path: path)
        // What is wrong with the first frame is said first; then a cut in a later one.
        try checkCut(whole, options: options, path: path)
        let chunks = try WebPChunks(.bytes(frame.bytes), path: path)
        let size = try stillSize(chunks, path: path)
        try ImageHeader(storedSize: size, format: .webp).checkPixels(limit: options.maxPixels, path: path)
        let decoded = try decodeStill(.bytes(frame.bytes), chunks: chunks, size: size, options: options, path: path, handoff: nil)
        guard let placement = frame.webpPlacement else { return decoded }
        try ImageHeader(storedSize: placement.canvas, format: .webp).checkPixels(limit: options.maxPixels, path: path)
        return try Image.canvas(size: placement.canvas, background: Color(red: 0, green: 0, blue: 0, alpha: 0), placing: decoded,
                                at: (placement.x, placement.y))
    }

    /// A still WebP's pixels as libwebp decodes them, fed to it 64 KiB at a time, each batch of
    /// finished rows told to `handoff`.
    private static func decodeStill(_ input: EncodedInput, chunks: WebPChunks, size: Size, options: LoadOptions, path: String?,
                                    handoff: RowHandoff?) throws -> Image {
        let alpha = chunks.hasAlpha
        return try Image.make(size: size, hasAlpha: alpha) { writer in
            let length = writer.rowStride * (size.height - 1) + size.width * writer.channelCount
            guard let decoder = WebPINewRGB(alpha ? MODE_RGBA : MODE_RGB, writer.base, length, Int32(writer.rowStride)) else {
                throw ImageError(.tooLarge, path: path, reason: "libwebp could not start its decoder")
            }
            defer { WebPIDelete(decoder) }
            handoff?.ready(writer.base)
            do {
                let rows = try feed(decoder, from: input, end: min(chunks.length, chunks.statedLength ?? .max), size: size,
                                    cut: chunks.statedLength != nil, options: options, path: path, handoff: handoff)
                // Taken as it is: the rows libwebp did not decode are black.
                if rows < size.height {
                    // To the last row's last sample: the buffer ends there, unpadded.
                    (writer.base + rows * writer.rowStride).update(repeating: 0, count: (size.height - rows - 1) * writer.rowStride
                                                                   + size.width * writer.channelCount)
                    handoff?.made(size.height)
                }
            } catch {
                handoff?.failing() // the reader lets go of the buffer before it is freed
                throw error
            }
        }
    }

    /// Gives libwebp the input's bytes up to `end` until it has decoded the picture; returns the
    /// rows it decoded, fewer than the picture's only when the load's level takes the damage.
    private static func feed(_ decoder: OpaquePointer, from input: EncodedInput, end: Int, size: Size, cut: Bool,
                             options: LoadOptions, path: String?, handoff: RowHandoff?) throws -> Int {
        var offset = 0, rows = 0
        var status = VP8_STATUS_SUSPENDED
        while status == VP8_STATUS_SUSPENDED, offset < end {
            try options.checkDeadline(path: path)
            if let handoff, !handoff.room(for: rows) { throw ImageError(.interrupted, path: path, reason: RowHandoff.readerStopped) }
            let bytes = try input.bytes(count: min(1 << 16, end - offset), at: offset)
            guard !bytes.isEmpty else { break }
            offset += bytes.count
            status = bytes.withUnsafeBufferPointer { WebPIAppend(decoder, $0.baseAddress, $0.count) }
            var lastRow: Int32 = 0, width: Int32 = 0, height: Int32 = 0
            // The size is 0 × 0 until libwebp has read the image data's header.
            if WebPIDecGetRGB(decoder, &lastRow, &width, &height, nil) != nil, width > 0 {
                guard Int(width) == size.width, Int(height) == size.height else {
                    throw ImageError(.corrupt, path: path, reason: "the WebP's image is \(width)×\(height), not the \(size) its header states")
                }
                if Int(lastRow) > rows {
                    rows = Int(lastRow)
                    handoff?.made(rows)
                }
            }
        }
        if status == VP8_STATUS_OK {
            // The pixels are whole; what is cut is metadata after them.
            if cut, options.refuses(.warning) {
                throw ImageError(.corrupt, path: path, reason: "the file ends within the WebP's chunks after its image data")
            }
            return size.height
        }
        let place = " after \(rows) of its \(size.height) rows"
        let (level, reason): (FailOn, String) = switch status {
        case VP8_STATUS_SUSPENDED where cut: (.truncated, "the file ends within the WebP's image data\(place)")
        case VP8_STATUS_SUSPENDED: (.truncated, "the WebP's image data ends early\(place)")
        case VP8_STATUS_UNSUPPORTED_FEATURE:
            throw ImageError(.unsupported, path: path, reason: "the WebP uses a feature libwebp does not support")
        case VP8_STATUS_OUT_OF_MEMORY: throw ImageError(.tooLarge, path: path, reason: "libwebp ran out of memory")
        default: (.error, "the WebP's image data is damaged\(place) (libwebp's status \(status.rawValue))")
        }
        if options.refuses(level) { throw ImageError(.corrupt, path: path, reason: reason) }
        return rows
    }
}
