import CGdkPixbuf

extension Image {
    /// The picture encoded in `format`. JPEG output of a picture with alpha is flattened onto
    /// `options.background` first. A `cancellation` stops the PNG encoder between rows.
    public func encoded(as format: ImageFormat, options: SaveOptions = SaveOptions(), cancellation: Cancellation? = nil) throws -> [UInt8] {
        if format == .jpeg, hasAlpha {
            return try flattened(onto: options.background).encoded(as: format, options: options, cancellation: cancellation)
        }
        if format == .ico, width > 256 || height > 256 {
            throw ImageError(.unwritable, reason: "ICO holds at most 256x256 pixels; this picture is \(size)")
        }
        switch format {
        case .png: return try PNGEncoder.encode(self, compression: options.compression, cancellation: cancellation)
        case .jpeg, .webp: return try encodedByGdkPixbuf(type: format.rawValue, settings: [("quality", String(options.quality))])
        case .tiff, .bmp, .ico: return try encodedByGdkPixbuf(type: format.rawValue, settings: [])
        }
    }

    /// The picture as gdk-pixbuf's saver for `type` writes it, with its key/value options.
    func encodedByGdkPixbuf(type: String, settings: [(String, String)]) throws -> [UInt8] {
        var keys = settings.map { strdup($0.0) }
        var values = settings.map { strdup($0.1) }
        keys.append(nil)
        values.append(nil)
        defer {
            keys.forEach { free($0) }
            values.forEach { free($0) }
        }
        var buffer: UnsafeMutablePointer<gchar>?
        var length: gsize = 0
        try checkGError(.unwritable, path: nil) { error in
            gdk_pixbuf_save_to_bufferv(pixbuf, &buffer, &length, type, &keys, &values, error)
        }
        defer { g_free(buffer) }
        guard let buffer else { throw ImageError(.unwritable, reason: "the \(type) encoder gave no data") }
        return Array(UnsafeRawBufferPointer(start: buffer, count: Int(length)))
    }

    /// The picture composited over an opaque colour, without alpha.
    public func flattened(onto background: Color) throws -> Image {
        guard hasAlpha else { return self }
        let back = [Int(background.red), Int(background.green), Int(background.blue)]
        return try Image.make(size: size, hasAlpha: false) { writer in
            for y in 0..<height {
                let source = row(y)
                let target = writer.row(y)
                for x in 0..<width {
                    let alpha = Int(source[x * 4 + 3])
                    for channel in 0..<3 {
                        let blended = Int(source[x * 4 + channel]) * alpha + back[channel] * (255 - alpha)
                        target[x * 3 + channel] = UInt8((blended + 127) / 255)
                    }
                }
            }
        }
    }

    /// Divides colour by alpha, for pictures whose decoder left them premultiplied.
    func unpremultiplied() throws -> Image {
        try Image.make(size: size, hasAlpha: true) { writer in
            for y in 0..<height {
                let source = row(y)
                let target = writer.row(y)
                for index in stride(from: 0, to: width * 4, by: 4) {
                    let alpha = Int(source[index + 3])
                    target[index + 3] = UInt8(alpha)
                    for channel in 0..<3 {
                        let value = Int(source[index + channel])
                        target[index + channel] = alpha == 0 ? 0 : UInt8(min(255, (value * 255 + alpha / 2) / alpha))
                    }
                }
            }
        }
    }
}
