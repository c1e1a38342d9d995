extension Image {
    /// Decodes the picture file at `path`; `header`, when the caller has already read it,
    /// saves reading it again.
    public static func load(path: String, options: LoadOptions = LoadOptions(), header known: ImageHeader? = nil) throws -> Image {
        let header = try known ?? ImageHeader.read(path: path)
        try header.checkPixels(limit: options.maxPixels, path: path)
        if header.format == "jpeg", options.failOnDamage, let image = try StrictJPEG.decode(path: path, orientation: header.orientation, options: options) {
            return image
        }
        let decoder = PixbufDecoder(options: options, path: path, orientation: header.orientation)
        try ImageFile.readChunks(path: path) { try decoder.write($0) }
        return try decoder.finish()
    }

    /// Decodes a picture held in memory (any format gdk-pixbuf reads).
    public static func decode(_ bytes: some Collection<UInt8>, options: LoadOptions = LoadOptions()) throws -> Image {
        let contiguous = Array(bytes)
        guard !contiguous.isEmpty else { throw ImageError(.corrupt, reason: "no bytes to decode") }
        if StrictJPEG.isJPEG(contiguous), options.failOnDamage, let image = try StrictJPEG.decode(contiguous, options: options, path: nil) { return image }
        let orientation = ExifOrientation.parse(jpeg: Array(contiguous.prefix(1 << 17)))
        let decoder = PixbufDecoder(options: options, path: nil, orientation: orientation)
        _ = try contiguous.withUnsafeBytes { try decoder.write($0) }
        return try decoder.finish()
    }
}
