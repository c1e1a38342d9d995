import CSpng

/// PNG files decoded by libspng, the PNG library libvips uses: the file read once (`PNGStream`),
/// rows handed out as they are decoded (so a PNG streams as a JPEG does), every chunk's CRC and
/// the image data's Adler-32 checked, data cut short or damaged an error at the `load fail=`
/// level it belongs to, and 16-bit samples rounded to 8 bits (v · 255 / 65535 to the nearest
/// level, as libvips and Pillow round; a high byte alone would make 0xFF00 255, not 254).
/// Any bit depth, palette and gray become RGB, or RGBA when the PNG has alpha or a tRNS color.
/// The color chunks (cICP, iCCP, sRGB, gAMA and cHRM) become the source profile through the
/// metadata scanner, which walks to every metadata chunk before the first row (text chunks may
/// follow the image data), and the EXIF orientation is the header's (`ImageHeader.orientation`).
enum PNGDecoder {
    /// The picture, turned upright by `orientation` and color managed; or, with a `handoff` that
    /// takes rows, the ring of rows a streamed run read (the whole picture when it declined).
    /// An interlaced PNG never hands out rows: its passes fill the picture out of order.
    static func decode(_ input: EncodedInput, orientation: Int, options: LoadOptions, path: String?,
                       handoff: RowHandoff? = nil) throws -> Image {
        if let animation = try APNGStructure.announcement(of: input), animation.defaultHidden {
            return try firstFrame(input, orientation: orientation, options: options, path: path)
        }
        let stream = PNGStream(input, options: options, path: path)
        // The Adler-32 of the image data is checked only where damaged data is refused.
        guard let context = spng_ctx_new(options.refuses(.error) ? 0 : Int32(SPNG_CTX_IGNORE_ADLER32.rawValue)) else {
            throw ImageError(.unreadable, path: path, reason: "libspng could not start")
        }
        defer { spng_ctx_free(context) }
        let decoder = PNGDecodeSession(context: context, stream: stream, options: options, path: path)
        try decoder.check(stream.attach(to: context), "data")
        // A critical chunk's bad CRC is damage (`error`); an ancillary one's is passed over, as
        // libpng warns and passes over it, unless warnings are refused.
        _ = spng_set_crc_action(context, Int32((options.refuses(.error) ? SPNG_CRC_ERROR : SPNG_CRC_USE).rawValue),
                                Int32((options.refuses(.warning) ? SPNG_CRC_ERROR : SPNG_CRC_DISCARD).rawValue))
        // Text and other ancillary chunks are kept by libspng up to these bounds: 64 MiB in all.
        _ = spng_set_chunk_limits(context, 1 << 26, 1 << 26)
        var header = spng_ihdr()
        try decoder.check(spng_get_ihdr(context, &header), "header")
        let size = Size(Int(header.width), Int(header.height))
        try ImageHeader(storedSize: size, format: .png).checkPixels(limit: options.maxPixels, path: path)
        var transparency = spng_trns()
        let trns = spng_get_trns(context, &transparency)
        if trns != SPNG_ECHUNKAVAIL.rawValue { try decoder.check(trns, "chunks before the image data") }
        let alpha = trns == 0 || header.color_type == UInt8(SPNG_COLOR_TYPE_GRAYSCALE_ALPHA.rawValue)
            || header.color_type == UInt8(SPNG_COLOR_TYPE_TRUECOLOR_ALPHA.rawValue)
        let layout = PNGRowLayout(width: size.width, sixteen: header.bit_depth == 16, alpha: alpha)
        let interlaced = header.interlace_method != 0
        let turn = options.applyOrientation ? orientation : 1
        // Every metadata chunk of the file, wherever it lies, and what IHDR says.
        var metadata = try MetadataScanner.walk(input, format: .png)
        // What libpng only warns of (an empty eXIf chunk): read through, unless warnings are refused.
        if let warning = metadata.decodeWarnings.first, options.refuses(.warning) { throw ImageError(.corrupt, path: path, reason: warning) }
        metadata.grayOnly = header.color_type == UInt8(SPNG_COLOR_TYPE_GRAYSCALE.rawValue) && !alpha
        metadata.orientationApplied = turn != 1
        // The picture turned upright and color managed.
        func finished(_ decoded: Image) throws -> Image {
            try Image.colorManaged(decoded.orientedByExif(turn), metadata: metadata, options: options, path: path)
        }

        if interlaced {
            let decoded = try decoder.decodeWhole(size: size, layout: layout)
            try decoder.finishChunks()
            return try finished(decoded)
        }
        let started = spng_decode_image(context, nil, 0, layout.format, layout.flags | Int32(SPNG_DECODE_PROGRESSIVE.rawValue))
        if started != 0 {
            // A file cut within its first IDAT chunk ends before libspng starts on the rows.
            guard stream.reachedEnd else { throw decoder.failure(started, "chunks before the image data") }
            try decoder.judge(started, row: 0, of: size.height)
            let black = try Image.filled(Color(red: 0, green: 0, blue: 0, alpha: 255), size: size, hasAlpha: alpha)
            return try finished(black)
        }
        if let handoff, let ring = try streamRows(decoder, size: size, layout: layout, metadata: metadata, to: handoff) { return ring }
        let decoded = try Image.make(size: size, hasAlpha: alpha) { writer in
            try decoder.decodeRows(size: size, layout: layout, row: { writer.base + $0 * writer.rowStride }, decoded: { _ in })
        }
        try decoder.finishChunks()
        return try finished(decoded)
    }

    /// The first frame of an APNG whose still picture is not part of its animation: the picture
    /// browsers show first, as the frame the animation's runs count from 0.
    private static func firstFrame(_ input: EncodedInput, orientation: Int, options: LoadOptions, path: String?) throws -> Image {
        let bytes = try input.bytes(count: input.length, at: 0)
        guard let frame = try APNGFrameDecoder(bytes: bytes, options: options, failOnDamage: options.failOnDamage, path: path).next() else {
            throw ImageError(.corrupt, path: path, reason: "the APNG holds no frame")
        }
        return frame.image.orientedByExif(options.applyOrientation ? orientation : 1)
    }

    /// Says what the picture is to a streamed run's reader and decodes into the ring it asks
    /// for; nil when the reader declined the rows (nothing is decoded yet).
    private static func streamRows(_ decoder: PNGDecodeSession, size: Size, layout: PNGRowLayout, metadata: ImageMetadata,
                                   to handoff: RowHandoff) throws -> Image? {
        let rowStride = RowHandoff.Start.rowStride(width: size.width, channels: layout.channels)
        let ring = handoff.started(RowHandoff.Start(size: size, rowStride: rowStride, channels: layout.channels, metadata: metadata))
        guard !handoff.declined else { return nil }
        let path = decoder.path
        // The ring carries the decode's warnings, for the run to tell once the rows are read.
        var warnings = ImageMetadata()
        warnings.decodeWarnings = metadata.decodeWarnings
        return try Image.make(size: Size(size.width, ring > 0 ? ring : size.height), hasAlpha: layout.alpha) { writer in
            do {
                guard writer.rowStride == rowStride else { throw ImageError(.tooLarge, path: path, reason: "the ring's rows are not laid out as said") }
                handoff.ready(writer.base)
                try decoder.decodeRows(size: size, layout: layout, row: { y in
                    guard handoff.room(for: y) else { throw ImageError(.interrupted, path: path, reason: RowHandoff.readerStopped) }
                    return writer.base + (ring > 0 ? y % ring : y) * rowStride
                }, decoded: { rows in
                    // Told every 16 rows (`Start.bandRows`), as libjpeg's watcher is: often enough
                    // to keep the reader busy, seldom enough that the lock costs nothing.
                    if rows % 16 == 0 || rows == size.height { handoff.made(rows) }
                })
                try decoder.finishChunks()
            } catch {
                handoff.failing() // the reader lets go of the ring before it is freed
                throw error
            }
        }.withMetadata(warnings)
    }
}
