extension Image {
    /// A decoded picture made ready for the stages: converted to sRGB from the profile it came
    /// with (unless `color=keep` leaves an RGB profile in place), with its metadata attached.
    /// A failed conversion names `path`, the file it came from.
    static func colorManaged(_ image: Image, metadata: ImageMetadata, options: LoadOptions, path: String?) throws -> Image {
        let (source, metadata) = colorManagement(of: metadata, options: options)
        guard let source else { return image.withMetadata(metadata) }
        do {
            // A decode of a region (`LoadOptions.region`) has pixels there only: only they are converted.
            return try image.converted(from: source, to: .sRGB, intent: options.intent, within: options.region).withMetadata(metadata)
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
