extension Image {
    /// Decodes the picture file at `path`; `header`, when the caller has already read it,
    /// saves reading it again, and its decoder goes on from the file the header read opened
    /// (`ImageHeader.source`): each input is opened once. The format is the header's, and only
    /// its decoder runs.
    public static func load(path: String, options: LoadOptions = LoadOptions(), header known: ImageHeader? = nil) throws -> Image {
        let header = try known ?? ImageHeader.read(path: path, options: options)
        try header.checkPixels(limit: options.maxPixels, path: path)
        guard let format = SourceFormat(rawValue: header.format), options.allowedFormats.contains(format) else {
            throw ImageError(.unsupported, path: path, reason: "\(header.format): not an allowed format")
        }
        // A FIFO or device (no file to open) can be read only once: whole, then decoded.
        guard let file = try header.source ?? OpenedFile.open(path: path, limit: options.maxInputBytes) else {
            return try decode(ImageFile.readAll(path: path, limit: options.maxInputBytes, deadline: options.deadline), options: options, path: path)
        }
        if format == .jpeg {
            return try StrictJPEG.finished(StrictJPEG.decodeRaw(file: file, orientation: header.orientation, options: options, watcher: nil),
                                           orientation: header.orientation, options: options, path: path)
        }
        if format == .tiff { return try TIFFDecoder.decode(.file(file), options: options, path: path) }
        if format == .png { return try PNGDecoder.decode(.file(file), orientation: header.orientation, options: options, path: path) }
        if format == .webp { return try WebPDecoder.decode(.file(file), options: options, path: path) }
        // A decoder that reads from memory gets the whole file (`Codec.wholeFile`): an animation
        // is cut to its first frame there (a GIF's LZW codes are checked), libheif reads a HEIF
        // container, ImagePipe a BMP; an opt-in format goes to its own process.
        if Codec.of(format).wholeFile {
            return try decode(file.readAll(), options: options, path: path)
        }
        let decoder = try PixbufDecoder(format: format, options: options, path: path, orientation: header.orientation)
        try file.readChunks(deadline: options.deadline) { try decoder.write($0) }
        return try decoder.finish()
    }

    /// libjpeg's decode of a JPEG file whose header passed `load`'s checks (or `Load.describe`'s),
    /// from the file the header read opened, before the EXIF turn and color management
    /// (`StrictJPEG.finished`); `watcher` hears of the rows as they come.
    static func decodeRawJPEG(path: String, header: ImageHeader, options: LoadOptions, watcher: RowHandoff?) throws -> (Image, ImageMetadata) {
        guard let file = try header.source ?? OpenedFile.open(path: path, limit: options.maxInputBytes) else {
            throw ImageError(.unreadable, path: path, reason: "not a regular file")
        }
        return try StrictJPEG.decodeRaw(file: file, orientation: header.orientation, options: options, watcher: watcher)
    }

    /// Decodes a picture held in memory (any format `options` allows).
    public static func decode(_ bytes: some Collection<UInt8>, options: LoadOptions = LoadOptions()) throws -> Image {
        try decode(Array(bytes), options: options, path: nil)
    }

    static func decode(_ whole: [UInt8], options: LoadOptions, path: String?) throws -> Image {
        if let limit = options.maxInputBytes, whole.count > limit { throw ImageError.tooManyBytes(limit: limit, path: path) }
        let format = try SourceFormat.identify(whole, allowed: options.allowedFormats, path: path)
        var contiguous = whole
        if format == .ico {
            // Its largest entry: a PNG is read by libspng, a bitmap by gdk-pixbuf's loader as an ICO of that entry alone.
            switch try ICODirectory(whole, path: path).chosen {
            case let .png(png): return try PNGDecoder.decode(.bytes(png), orientation: 1, options: options, path: path)
            case let .bitmap(single): contiguous = single
            }
        }
        if format.isHEIF { return try HEIFDecoder.decode(contiguous, format: format, options: options, path: path) }
        if format == .jxl { return try JXLDecoder.decode(contiguous, options: options, path: path) }
        if format == .tiff { return try TIFFDecoder.decode(.bytes(contiguous), options: options, path: path) }
        if format == .png {
            return try PNGDecoder.decode(.bytes(contiguous), orientation: ExifOrientation.parse(contiguous, format: .png), options: options, path: path)
        }
        if format == .webp { return try WebPDecoder.decode(.bytes(contiguous), options: options, path: path) }
        if format == .bmp { return try BMPDecoder.decode(contiguous, options: options, path: path) }
        if options.isolates(format), let helper = options.isolatedDecoder {
            return try IsolatedDecoder.decode(contiguous, format: format, helper: helper, options: options, path: path)
        }
        let frame = try FirstFrame(of: contiguous, format: format, path: path)
        if format == .gif {
            // giflib decodes codes that were never defined as if they were the next one: the
            // first frame's codes are walked first, and such a frame refused.
            if options.refuses(.error), let damage = GIFDataCheck.damage(in: frame) { throw ImageError(.corrupt, path: path, reason: damage) }
            // Later frames are not decoded, so a file cut inside one is found here.
            if let cut = frame.gifCut, options.refuses(cut.level) { throw ImageError(.corrupt, path: path, reason: cut.reason) }
            return try firstGIFFrame(GIFFrameDecoder.Input(bytes: frame.bytes), header: GIFFrameCounter.header(of: contiguous, path: path),
                                     options: options, path: path)
        }
        if format == .jpeg { return try StrictJPEG.decode(contiguous, options: options, path: path) }
        let decoder = try PixbufDecoder(format: format, options: options, path: path, orientation: ExifOrientation.parse(frame.bytes, format: format))
        _ = try frame.bytes.withUnsafeBytes { try decoder.write($0) }
        return try decoder.finish()
    }

    /// A GIF's first frame, decoded by giflib and composed on the canvas its header gave, as the
    /// frames of an animation are (`GIFFrameDecoder`).
    private static func firstGIFFrame(_ input: GIFFrameDecoder.Input, header: ImageHeader, options: LoadOptions, path: String?) throws -> Image {
        try header.checkPixels(limit: options.maxPixels, path: path)
        try options.checkDeadline(path: path)
        let decoder = try GIFFrameDecoder(input: input, canvas: header.storedSize, options: options, failOnDamage: options.failOnDamage, path: path)
        guard let frame = try decoder.next() else { throw ImageError(.corrupt, path: path, reason: "the GIF holds no frame") }
        return frame.image
    }
}
