import CJXL

/// JPEG XL read through libjxl (Debian's libjxl 0.7, the version libvips 8.14 reads it with):
/// lossy (VarDCT, XYB) and lossless (modular), 8 to 16 bits and float, gray, alpha, animation,
/// a recompressed JPEG, the ICC profile and the EXIF and XMP boxes.
///
/// The file is read whole (`CodecCapabilities.wholeFile`): libjxl walks the container's boxes and the
/// frames' table of contents in memory. Samples come as 8 bits, rounded by libjxl from whatever
/// depth the file has. Gray comes as RGB. The codestream's orientation is applied here, as every
/// format's EXIF orientation is (libjxl is asked to keep the stored one), so `auto-orient=false`
/// keeps the stored pixels. The pixels are converted to sRGB from their profile
/// (`Image.colorManaged`): libjxl states the profile of the pixels it gives, which for a lossy
/// (XYB) file is the original color space when the file says it by name, and sRGB needs none.
///
/// Damage: libjxl is given the file whole but told no end (`JXLStream`), so a cut file is
/// `truncated` (at `fail=none` the part decoded so far is kept, the rest black) and anything
/// else libjxl refuses is `error`. A still decode of an animation decodes its first frame, skips
/// the pixels of the frames between (a cut inside one leaves the next frame's header missing)
/// and decodes the last one too, unused: libjxl skips a frame by its table of contents without
/// reading its data, so only a decode finds the last frame cut short.
enum JXLDecoder {
    /// The header: stored size, orientation and frame count, from the codestream's headers
    /// (each frame's header is read, its pixels skipped).
    static func header(of bytes: [UInt8], path: String?) throws -> ImageHeader {
        let walk = try Walk(bytes, path: path)
        return ImageHeader(storedSize: walk.size, format: .jxl, orientation: walk.orientation, frameCount: max(1, walk.delays.count))
    }

    /// The ICC profile (of the pixels as decoded), EXIF and XMP, without decoding.
    static func metadata(of bytes: [UInt8], path: String?) throws -> ImageMetadata {
        let walk = try Walk(bytes, path: path)
        return ImageMetadata(sourceProfile: walk.profile, exif: walk.exif, xmp: walk.xmp).screeningEXIF()
    }

    /// What `imagepipe info` says of the coding; empty when the header cannot be read.
    static func codingFacts(of bytes: [UInt8]) -> CodingFacts {
        var facts = CodingFacts()
        guard let walk = try? Walk(bytes, path: nil) else { return facts }
        let info = walk.info
        facts.hasAlpha = info.alpha_bits > 0
        facts.channels = Int(info.num_color_channels) + (info.alpha_bits > 0 ? 1 : 0)
        facts.bitDepth = Int(info.bits_per_sample)
        // Lossy JPEG XL codes the pixels in XYB; a file in its original color space is lossless
        // or near it (modular, or a recompressed JPEG).
        facts.colorSpace = info.uses_original_profile == JXL_TRUE ? (info.num_color_channels == 1 ? "gray" : "RGB") : "XYB"
        if info.uses_original_profile == JXL_FALSE { facts.lossless = false }
        if info.have_animation == JXL_TRUE {
            facts.delays = walk.delays
            facts.plays = Int(info.animation.num_loops)
        }
        return facts
    }

    /// The picture (an animation's first frame), turned upright and color managed.
    static func decode(_ bytes: [UInt8], options: LoadOptions, path: String?) throws -> Image {
        let stream = try JXLStream(bytes: bytes, events: [JXL_DEC_BASIC_INFO, JXL_DEC_COLOR_ENCODING, JXL_DEC_FRAME, JXL_DEC_FULL_IMAGE],
                                   threaded: true, path: path)
        var target: JXLPixels?
        var decoded: Image?
        /// The last frame of an animation, decoded only to find it whole.
        var last: JXLPixels?
        var metadata = ImageMetadata()
        walk: while true {
            try options.checkDeadline(path: path)
            switch try stream.next() {
            case .basicInfo:
                try checkChannels(stream)
                try ImageHeader(storedSize: stream.storedSize, format: .jxl).checkPixels(limit: options.maxPixels, path: path)
            case .colorEncoding:
                metadata.sourceProfile = stream.pixelProfile()
            case .needImageBuffer:
                guard decoded == nil, target == nil else {
                    if stream.frameHeader.is_last == JXL_TRUE {
                        last = try JXLPixels(stream: stream)
                    } else if JxlDecoderSkipCurrentFrame(stream.decoder) != JXL_DEC_SUCCESS {
                        throw stream.damaged("a frame cannot be skipped")
                    }
                    continue
                }
                target = try JXLPixels(stream: stream)
            case .fullImage:
                if decoded == nil, let pixels = target {
                    decoded = try pixels.image
                    target = nil
                }
                // Decoded whole: let go of it.
                if last != nil { last = nil }
            case .frame: continue
            case .success: break walk
            case .cut:
                if options.refuses(.truncated) {
                    throw ImageError(.corrupt, path: path, reason: "the JPEG XL data is cut short (the file ends \(decoded == nil ? "before its picture is whole" : "within a later frame or box"))")
                }
                if decoded == nil, let pixels = target {
                    // What libjxl had decoded when the file ended; the rest stays black.
                    guard stream.flushedAtCut else {
                        throw ImageError(.corrupt, path: path, reason: "the JPEG XL data is cut short before any of its picture")
                    }
                    decoded = try pixels.image
                }
                break walk
            }
        }
        guard let decoded else { throw ImageError(.corrupt, path: path, reason: "the JPEG XL file holds no picture") }
        metadata.exif = stream.exif
        metadata.xmp = stream.xmp
        metadata = metadata.screeningEXIF()
        let turn = options.applyOrientation ? Int(stream.info.orientation.rawValue) : 1
        metadata.orientationApplied = turn != 1
        return try Image.colorManaged(decoded.orientedByExif(turn), metadata: metadata, options: options, path: path)
    }

    /// Refuses what would come out wrong: a CMYK picture (its black is an extra channel the
    /// interleaved output leaves out).
    static func checkChannels(_ stream: JXLStream) throws {
        for index in 0..<stream.info.num_extra_channels {
            var channel = JxlExtraChannelInfo()
            guard JxlDecoderGetExtraChannelInfo(stream.decoder, Int(index), &channel) == JXL_DEC_SUCCESS else { throw stream.damaged("an extra channel cannot be read") }
            if channel.type == JXL_CHANNEL_BLACK {
                throw ImageError(.unsupported, path: stream.path, reason: "a CMYK JPEG XL (a black channel) is not read; convert it with djxl")
            }
        }
    }

    /// The headers of the whole file, without decoding pixels.
    private struct Walk {
        var info = JxlBasicInfo()
        var size = Size(0, 0)
        var orientation = 1
        var profile: [UInt8]?
        var exif: [UInt8]?
        var xmp: [UInt8]?
        /// Each shown frame's duration in milliseconds (one 0 for a still picture).
        var delays: [Int] = []

        init(_ bytes: [UInt8], path: String?) throws {
            let stream = try JXLStream(bytes: bytes, events: [JXL_DEC_BASIC_INFO, JXL_DEC_COLOR_ENCODING, JXL_DEC_FRAME], threaded: false, path: path)
            walk: while true {
                switch try stream.next() {
                case .basicInfo:
                    info = stream.info
                    size = stream.storedSize
                    orientation = Int(info.orientation.rawValue)
                    guard size.width > 0, size.height > 0 else { throw stream.damaged("it states no picture size") }
                case .colorEncoding: profile = stream.pixelProfile()
                case .frame: delays.append(info.have_animation == JXL_TRUE ? stream.milliseconds(ticks: stream.frameHeader.duration) : 0)
                case .success: break walk
                case .cut:
                    // A header needs the picture's size; the frames after a cut are counted as far as they go.
                    guard size.width > 0 else { throw ImageError(.corrupt, path: path, reason: "the JPEG XL data is cut short before its header ends") }
                    break walk
                case .needImageBuffer, .fullImage: continue
                }
            }
            exif = stream.exif
            xmp = stream.xmp
        }
    }
}
