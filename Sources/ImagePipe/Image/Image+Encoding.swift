extension Image {
    /// Encodes the picture and writes it to `path` atomically: a failed save leaves no file, and
    /// a file already there as it was. The format is `format`, else the one `path`'s extension
    /// names. For what `options` and `warn` do, see `encoded(as:options:cancellation:warn:)`.
    public func save(to path: String, format: ImageFormat? = nil, options: SaveOptions = SaveOptions(),
                     warn: (String) -> Void = { _ in }) throws {
        guard let format = format ?? ImageFormat(fileName: path) else {
            throw ImageError(.unwritable, path: path, reason: Save.unknownExtension(path))
        }
        do {
            try ImageFile.writeAtomically(to: path, gate: nil) { descriptor in
                try encode(as: format, options: options, cancellation: nil, warn: warn, to: EncoderOutput(descriptor: descriptor))
            }
        } catch var error as ImageError {
            error.path = error.path ?? path
            throw error
        }
    }

    /// The picture encoded in `format`. A picture with alpha is flattened onto
    /// `options.background` first for a format without (JPEG); the pixels are written in the profile `options.profile`
    /// says, with the metadata `options.keep` keeps. A `cancellation` stops the PNG, JPEG and TIFF
    /// encoders between rows, and libwebp at its progress reports (libavif has no way to be
    /// stopped); `warn` hears of metadata left out (`OutputMetadata.checked`).
    public func encoded(as format: ImageFormat, options: SaveOptions = SaveOptions(), cancellation: Cancellation? = nil,
                        warn: (String) -> Void = { _ in }) throws -> [UInt8] {
        let output = EncoderOutput()
        try encode(as: format, options: options, cancellation: cancellation, warn: warn, to: output)
        return output.bytes
    }

    /// `encoded(as:…)` into `output`: the encoders that write rows in order (`RowEncoding`) write
    /// into it as they go, the others hand it their file whole.
    func encode(as format: ImageFormat, options: SaveOptions, cancellation: Cancellation?, warn: (String) -> Void,
                to output: EncoderOutput) throws {
        if !format.supportsAlpha, hasAlpha {
            var flat = metadata
            let back = options.background
            flat.grayOnly = metadata.grayOnly && back.red == back.green && back.green == back.blue // gray on a color is not gray
            return try flattened(onto: back).withMetadata(flat).encode(as: format, options: options, cancellation: cancellation, warn: warn,
                                                                        to: output)
        }
        let codec = Codecs.of(format)
        try codec.checkWritable(size)
        let (image, embedded) = try preparedForSaving(as: format, options: options, warn: warn)
        if codec.takesRows(options: options) {
            return try codec.encode(rows: RowFeed(image, cancellation: cancellation), options: options, gray: image.metadata.grayOnly,
                                    metadata: embedded, to: output)
        }
        try output.write(codec.encode(image, options: options, metadata: embedded, cancellation: cancellation))
    }

    /// The pixels as they are to be written, in the profile asked for, and what to embed.
    ///
    /// The pixels' profile is `metadata.iccProfile` (nil: sRGB). A format that cannot embed a
    /// profile gets sRGB pixels, which is what a reader assumes of it.
    func preparedForSaving(as format: ImageFormat, options: SaveOptions, warn: (String) -> Void) throws -> (Image, OutputMetadata) {
        let (target, embedded, warnings) = try Image.savingPlan(for: metadata, as: format, options: options)
        warnings.forEach(warn)
        guard target != metadata.iccProfile else { return (self, embedded) }
        let (from, to) = try Image.savingConversion(from: metadata.iccProfile, to: target)
        return (try converted(from: from, to: to, intent: .perceptual), embedded)
    }

    /// The profiles a save converts between: from the pixels' (nil: sRGB) to `savingPlan`'s target.
    static func savingConversion(from pixels: [UInt8]?, to target: [UInt8]?) throws -> (from: ICCProfile, to: ICCProfile) {
        func opened(_ bytes: [UInt8]?) throws -> ICCProfile {
            guard let bytes else { return .sRGB }
            guard let profile = ICCProfile.cached(bytes) else { throw ImageError(.corrupt, reason: "its ICC profile cannot be read") }
            return profile
        }
        return (try opened(pixels), try opened(target))
    }

    /// What `preparedForSaving` decides from a picture's metadata alone: the profile the written
    /// pixels are to be in (nil: sRGB; when it differs from `metadata.iccProfile`, the pixels are
    /// converted), what to embed, and a warning for each block left out.
    static func savingPlan(for metadata: ImageMetadata, as format: ImageFormat, options: SaveOptions) throws
        -> (target: [UInt8]?, embedded: OutputMetadata, warnings: [String]) {
        var embedded = OutputMetadata()
        let written = Codecs.of(format).capabilities.writtenMetadata
        if written.contains("exif"), options.keep.keepsEXIF, let exif = metadata.exif {
            // The thumbnail shows the picture before the run: left out, as libvips does.
            var block = ExifBlock(exif).withoutThumbnail()
            if metadata.orientationApplied { block = block.withOrientationReset() }
            if options.keep.dropsGPS { block = block.withoutGPS() }
            embedded.exif = block.bytes
        }
        if written.contains("xmp"), options.keep.keepsXMP { embedded.xmp = metadata.xmp }
        var gpsWarnings: [String] = []
        if options.keep.dropsGPS, let xmp = embedded.xmp, XMPPacket.holdsGPS(xmp) {
            embedded.xmp = nil
            gpsWarnings.append("the XMP packet holds a GPS position (a GPS… property), which -gps leaves out: the packet is left out")
        }
        // The profile the written pixels are to be in (nil: sRGB), and whether to embed it.
        var target: [UInt8]?
        var embed: Bool
        var choice = options.profile
        if choice == .auto, options.keep.keepsICC { choice = .keep }
        switch choice {
        case .auto:
            (target, embed) = (metadata.iccProfile, metadata.iccProfile != nil)
        case .srgb:
            (target, embed) = (nil, true)
        case .none:
            (target, embed) = (nil, false)
        case .keep:
            let source = metadata.sourceProfile.flatMap(ICCProfile.cached)
            if let source, source.space == .rgb, !source.isSRGB {
                (target, embed) = (source.bytes, true)
            } else {
                // Grey and CMYK profiles cannot describe RGB pixels: those were made sRGB on load.
                (target, embed) = (nil, source != nil)
            }
        case let .file(path):
            let bytes = try ImageFile.readAll(path: path, limit: 64 << 20)
            guard bytes.count <= ICCProfile.maxBytes else {
                throw ImageError(.tooLarge, path: path, reason: "the profile is \(bytes.count) bytes, more than the largest read, \(ICCProfile.maxBytes)")
            }
            // Opened once per batch (the cache), and reused below for the conversion.
            guard let profile = ICCProfile.cached(bytes) else { throw ImageError(.unreadable, path: path, reason: "not an ICC profile Little CMS can read") }
            guard profile.space == .rgb else {
                throw ImageError(.unwritable, path: path, reason: "the profile '\(profile.name)' is \(profile.space.rawValue); only RGB profiles can be written")
            }
            (target, embed) = (bytes, true)
        }
        if !written.contains("icc") { (target, embed) = (nil, false) }
        if embed { embedded.icc = target ?? ICCProfile.sRGB.bytes }
        let (checked, warnings) = try embedded.checked(for: format)
        return (target, checked, gpsWarnings + warnings)
    }

    /// The picture composited over an opaque color, without alpha.
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
}
