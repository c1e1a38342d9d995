import CAvif

/// The AVIFs libheif 1.15 reads wrongly or not at all, read by libavif instead:
///
/// - a layered still image (an `a1op` operating point or an `lsel` layer selection): libheif
///   hands every layer to the AV1 decoder and gets the last, largest one (1436×730 for a picture
///   whose `ispe` and operating point say 360×182); libavif decodes the operating point's layer,
///   as Chromium does;
/// - a sequence without a still image's brands (`avis`, `msf1`, `iso8` but neither `mif1` nor
///   `avif`: the `.avifs` files browsers play), which libheif refuses outright. libavif reads its
///   track; the still picture is the first frame.
///
/// The container's turn, mirror and crop (`irot`, `imir`, `clap`) are not applied here: a file
/// that has them is read by libheif (`HEIFDecoder`), which applies them. The choice is made in
/// one place, `AVIFCodec`.
enum AVIFStillDecoder {
    /// What libavif reads of the file's container, without decoding a frame.
    struct Facts {
        var size: Size
        var frameCount: Int
        var alpha: Bool
        var bitDepth: Int
        var profile: [UInt8]?
        var transformed: Bool
        /// Each frame's duration in milliseconds (one entry for a still image).
        var delays: [Int]
    }

    /// The facts of `bytes` as libavif reads them (the primary item when there is one, else the
    /// track); nil when libavif cannot be opened or does not read the file.
    static func facts(of bytes: [UInt8]) -> Facts? {
        bytes.withUnsafeBufferPointer { buffer in
            guard let decoder = try? AVIFFrameDecoder.parsed(buffer, count: bytes.count, sizeLimit: nil, path: nil) else { return nil }
            defer { avifDecoderDestroy(decoder) }
            let image = decoder.pointee.image.pointee
            let profile = image.icc.size > 0 && image.icc.size <= ICCProfile.maxBytes ? Array(UnsafeBufferPointer(start: image.icc.data, count: image.icc.size)) : nil
            let track = AVIFFrameDecoder.track(in: bytes)
            return Facts(size: Size(Int(image.width), Int(image.height)), frameCount: Int(decoder.pointee.imageCount),
                         alpha: decoder.pointee.alphaPresent != AVIF_FALSE, bitDepth: Int(image.depth), profile: profile,
                         transformed: image.transformFlags & (AVIF_TRANSFORM_CLAP.rawValue | AVIF_TRANSFORM_IROT.rawValue | AVIF_TRANSFORM_IMIR.rawValue) != 0,
                         delays: track?.delays ?? [])
        }
    }

    /// Decodes the primary item (or, in a file without one, the track's first frame) to 8-bit
    /// RGB(A), with its profile, made ready for the stages as every decode is.
    static func decode(_ bytes: [UInt8], options: LoadOptions, path: String?, metadata given: ImageMetadata? = nil) throws -> Image {
        try bytes.withUnsafeBufferPointer { buffer in
            let decoder = try AVIFFrameDecoder.parsed(buffer, count: bytes.count, sizeLimit: options.maxPixels, path: path)
            defer { avifDecoderDestroy(decoder) }
            let stated = Size(Int(decoder.pointee.image.pointee.width), Int(decoder.pointee.image.pointee.height))
            if let limit = options.maxPixels, limit > 0, stated.pixelCount > limit { throw ImageError.tooManyPixels(stated, limit: limit, path: path) }
            try options.checkDeadline(path: path)
            let result = avifDecoderNextImage(decoder)
            guard result == AVIF_RESULT_OK, let picture = decoder.pointee.image else {
                throw ImageError(.corrupt, path: path, reason: "libavif cannot decode the AVIF: \(String(cString: avifResultToString(result)))")
            }
            let size = Size(Int(picture.pointee.width), Int(picture.pointee.height))
            guard size == stated else {
                throw ImageError(.corrupt, path: path, reason: "the AVIF's picture decodes to \(size), its container says \(stated)")
            }
            let image = try AVIFFrameDecoder.image(of: picture, size: size, path: path, what: "the AVIF's picture")
            var metadata = given ?? ImageMetadata()
            if given == nil, picture.pointee.icc.size > 0 {
                metadata.profileTooLarge = picture.pointee.icc.size > ICCProfile.maxBytes
                if !metadata.profileTooLarge { metadata.sourceProfile = Array(UnsafeBufferPointer(start: picture.pointee.icc.data, count: picture.pointee.icc.size)) }
            }
            metadata.orientationApplied = true
            return try Image.colorManaged(image, metadata: metadata, options: options, path: path)
        }
    }

    /// Whether the container lists an operating point (`a1op`) or a layer selection (`lsel`)
    /// among its item properties (`meta` → `iprp` → `ipco`): a layered still image.
    static func isLayered(_ bytes: [UInt8]) -> Bool {
        guard let meta = child("meta", of: 0..<bytes.count, in: bytes),
              let iprp = child("iprp", of: (meta.lowerBound + 4)..<meta.upperBound, in: bytes),
              let ipco = child("ipco", of: iprp, in: bytes) else { return false }
        return child("a1op", of: ipco, in: bytes) != nil || child("lsel", of: ipco, in: bytes) != nil
    }

    /// The contents (after the header) of the first box of `type` among the boxes that fill
    /// `range`; nil when there is none or a box's size runs past the range.
    private static func child(_ type: String, of range: Range<Int>, in bytes: [UInt8]) -> Range<Int>? {
        let wanted = Array(type.utf8)
        func big(_ at: Int, _ count: Int) -> Int { bytes[at..<at + count].reduce(0) { $0 << 8 | Int($1) } }
        var offset = range.lowerBound
        while offset + 8 <= range.upperBound {
            var size = big(offset, 4), header = 8
            if size == 1 {
                guard offset + 16 <= range.upperBound else { return nil }
                size = big(offset + 8, 8)
                header = 16
            } else if size == 0 {
                size = range.upperBound - offset
            }
            guard size >= header, size <= range.upperBound - offset else { return nil }
            if Array(bytes[(offset + 4)..<(offset + 8)]) == wanted { return (offset + header)..<(offset + size) }
            offset += size
        }
        return nil
    }
}
