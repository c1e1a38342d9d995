extension Image {
    /// Decodes the picture file at `path`; `header`, when the caller has already read it,
    /// saves reading it again, and its decoder goes on from the file the header read opened
    /// (`ImageHeader.source`): each input is opened once. The format is the header's, and only
    /// its codec runs.
    public static func load(path: String, options: LoadOptions = LoadOptions(), header known: ImageHeader? = nil) throws -> Image {
        let header = try known ?? ImageHeader.read(path: path, options: options)
        try header.checkPixels(limit: options.maxPixels, path: path)
        let format = header.format
        guard options.allowedFormats.contains(format) else {
            throw ImageError(.unsupported, path: path, reason: "\(format.rawValue): not an allowed format")
        }
        // A FIFO or device (no file to open) can be read only once: whole, then decoded.
        guard let file = try header.source ?? OpenedFile.open(path: path, limit: options.maxInputBytes) else {
            return try decode(ImageFile.readAll(path: path, limit: options.maxInputBytes, deadline: options.deadline), options: options, path: path)
        }
        return try Codecs.of(format).decode(file: file, header: header, options: options, path: path)
    }

    /// Decodes a picture held in memory (any format `options` allows).
    public static func decode(_ bytes: some Collection<UInt8>, options: LoadOptions = LoadOptions()) throws -> Image {
        try decode(Array(bytes), options: options, path: nil)
    }

    static func decode(_ whole: [UInt8], options: LoadOptions, path: String?) throws -> Image {
        if let limit = options.maxInputBytes, whole.count > limit { throw ImageError.tooManyBytes(limit: limit, path: path) }
        let format = try ImageFormat.identify(whole, allowed: options.allowedFormats, path: path)
        return try Codecs.of(format).decode(whole, options: options, path: path)
    }
}
