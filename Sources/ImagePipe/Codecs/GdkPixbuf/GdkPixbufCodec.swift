/// An opt-in format read by its gdk-pixbuf loader (librsvg for SVG), named, never chosen by
/// gdk-pixbuf's sniffing (`ImageFormat.sniff`), in a process of its own when the run has a helper
/// for it (`IsolatedDecoder`), from the whole file in memory.
struct GdkPixbufCodec: Codec {
    let format: ImageFormat
    var capabilities: CodecCapabilities {
        CodecCapabilities(reader: "gdk-pixbuf, in a separate process", writer: nil, fileExtensions: fileExtensions, mediaType: format == .svg ? "image/svg+xml" : nil,
                          wholeFile: true)
    }

    /// The names a file of the format goes by; a directory is searched for its loader's own
    /// (`ImageFormat.readableExtensions`).
    private var fileExtensions: [String] {
        switch format {
        case .svg: ["svg", "svgz"]
        case .pnm: ["pnm", "pbm", "pgm", "ppm", "pam"]
        default: [format.rawValue]
        }
    }

    func header(of bytes: [UInt8], options: LoadOptions, path: String?) throws -> ImageHeader {
        if options.isolates(format), let helper = options.isolatedDecoder {
            return try IsolatedDecoder.header(of: bytes, format: format, helper: helper, options: options, path: path)
        }
        return try PixbufDecoder.header(of: bytes, format: format, options: options, path: path)
    }

    func decode(_ bytes: [UInt8], options: LoadOptions, path: String?) throws -> Image {
        try Self.decode(bytes, loader: format, options: options, path: path)
    }

    /// `bytes` decoded by the gdk-pixbuf loader of `format`, in the helper's process if the run
    /// has one.
    static func decode(_ bytes: [UInt8], loader format: ImageFormat, options: LoadOptions, path: String?) throws -> Image {
        if options.isolates(format), let helper = options.isolatedDecoder {
            return try IsolatedDecoder.decode(bytes, format: format, helper: helper, options: options, path: path)
        }
        // None of these formats carries an EXIF orientation gdk-pixbuf is not left to read.
        let decoder = try PixbufDecoder(format: format, options: options, path: path, orientation: 1)
        _ = try bytes.withUnsafeBytes { try decoder.write($0) }
        return try decoder.finish()
    }
}
