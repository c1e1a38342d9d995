import CGdkPixbuf

extension Image {
    /// The picture with its pixels moved from the profile `source` to `target`.
    ///
    /// RGB and grey sources only (CMYK pixels are never held in an `Image`: see
    /// `fromCMYK`); a grey source is read from the first channel of each pixel, as a grey
    /// picture expanded to RGB holds it. Alpha is carried over unchanged.
    func converted(from source: ICCProfile, to target: ICCProfile, intent: RenderingIntent) throws -> Image {
        guard target.space == .rgb else {
            throw ImageError(.unwritable, reason: "the profile '\(target.name)' is \(target.space.rawValue), but only RGB output profiles can be used")
        }
        let input: ColorTransform.Layout
        switch source.space {
        case .rgb: input = hasAlpha ? .rgba : .rgb
        case .grey: input = hasAlpha ? .greyInRGBA : .greyInRGB
        case .cmyk, .other:
            throw ImageError(.corrupt, reason: "its ICC profile '\(source.name)' is for \(source.space.rawValue) pixels, but the picture is RGB")
        }
        let transform = try ColorTransform.make(from: source, to: target, input: input, output: hasAlpha ? .rgba : .rgb, intent: intent)
        return try Image.make(size: size, hasAlpha: hasAlpha) { writer in
            transform.convert(pixels, sourceStride: rowStride, into: writer.base, targetStride: writer.rowStride,
                              width: width, rows: height)
            guard input == .greyInRGBA else { return }
            // Little CMS copies alpha only between layouts with the same extra channels.
            for y in 0..<height {
                let from = rowStart(y), to = writer.base + y * writer.rowStride
                for x in 0..<width { to[x * 4 + 3] = from[x * 4 + 3] }
            }
        }
    }

    /// An RGB picture from CMYK pixels (4 bytes each, 0 = no ink) in rows of `stride` bytes:
    /// through `profile` to sRGB when there is one, else by the plain formula every reader
    /// without a profile uses (R = (1 − C)(1 − K), as ImageMagick and gdk-pixbuf convert).
    static func fromCMYK(_ pixels: UnsafePointer<UInt8>, size: Size, stride: Int, profile: ICCProfile?,
                         intent: RenderingIntent) throws -> Image {
        if let profile, profile.space == .cmyk {
            let transform = try ColorTransform.make(from: profile, to: .sRGB, input: .cmyk, output: .rgb, intent: intent)
            return try Image.make(size: size, hasAlpha: false) { writer in
                transform.convert(pixels, sourceStride: stride, into: writer.base, targetStride: writer.rowStride,
                                  width: size.width, rows: size.height)
            }
        }
        return try Image.make(size: size, hasAlpha: false) { writer in
            for y in 0..<size.height {
                let from = pixels + y * stride, to = writer.base + y * writer.rowStride
                for x in 0..<size.width {
                    let white = 255 - Int(from[x * 4 + 3])
                    for channel in 0..<3 {
                        to[x * 3 + channel] = UInt8(((255 - Int(from[x * 4 + channel])) * white + 127) / 255)
                    }
                }
            }
        }
    }

    /// A decoded picture made ready for the stages: converted to sRGB from the profile it came
    /// with (unless `color=keep` leaves an RGB profile in place), with its metadata attached.
    /// A failed conversion names `path`, the file it came from.
    static func colorManaged(_ image: Image, metadata: ImageMetadata, options: LoadOptions, path: String?) throws -> Image {
        let (source, metadata) = colorManagement(of: metadata, options: options)
        guard let source else { return image.withMetadata(metadata) }
        do {
            return try image.converted(from: source, to: .sRGB, intent: options.intent).withMetadata(metadata)
        } catch var error as ImageError {
            error.path = path
            throw error
        }
    }

    /// What `colorManaged` does to a decode with this metadata: the profile its pixels are to be
    /// converted to sRGB from (nil: they stay as they are), and the picture's metadata after.
    static func colorManagement(of metadata: ImageMetadata, options: LoadOptions) -> (convertFrom: ICCProfile?, metadata: ImageMetadata) {
        var metadata = metadata
        if let bytes = metadata.sourceProfile, bytes.count > ICCProfile.maxBytes {
            // Too large to trust (see `ICCProfile.maxBytes`): dropped, so it is neither opened
            // nor kept for the output.
            metadata.sourceProfile = nil
            metadata.profileTooLarge = true
        }
        guard let bytes = metadata.sourceProfile, let profile = ICCProfile.cached(bytes) else {
            // No profile, or one Little CMS cannot read: the pixels are taken as sRGB, as every
            // browser takes them.
            return (nil, metadata)
        }
        switch profile.space {
        case .rgb where profile.isSRGB:
            return (nil, metadata)
        case .rgb where options.color == .keep:
            metadata.iccProfile = bytes
            return (nil, metadata)
        case .rgb, .grey:
            return (profile, metadata)
        case .cmyk, .other:
            // A CMYK profile on RGB pixels (the decoder already converted them) or a Lab profile:
            // nothing to convert from.
            return (nil, metadata)
        }
    }
}
