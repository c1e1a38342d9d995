import CHeif

/// AVIF: the still picture through libheif (AV1 through dav1d or libaom), or libavif where
/// libheif reads it wrongly or not at all (`AVIFStillDecoder`); a sequence's frames through
/// libavif (`AVIFFrameDecoder`); written by libavif.
struct AVIFCodec: Codec {
    static let compression = HEIFCompression(libheif: heif_compression_AV1, name: "AV1", plugin: "libheif-plugin-dav1d")

    var format: ImageFormat { .avif }
    var capabilities: CodecCapabilities {
        CodecCapabilities(reader: "libheif (dav1d or libaom); sequences libavif", writer: "libavif", fileExtensions: ["avif"],
                          mediaType: "image/avif", wholeFile: true, frames: true, metadata: ["exif", "icc", "xmp"],
                          writtenMetadata: ["exif", "icc", "xmp"])
    }

    func header(of bytes: [UInt8], options: LoadOptions, path: String?) throws -> ImageHeader {
        try read(bytes, path: path, libheif: { handle in
            // The size as shown is libavif's reading of the container (`AVIFStillFacts`).
            let size = try HEIFDecoder.checked(AVIFStillFacts.read(bytes)?.shownSize ?? HEIFDecoder.statedSize(of: handle), format: format, path: path)
            return ImageHeader(storedSize: size, format: format, frameCount: sequence(in: bytes, still: size)?.frameCount ?? 1)
        }, libavif: { facts in
            ImageHeader(storedSize: facts.size, format: format, frameCount: facts.frameCount)
        })
    }

    func decode(_ bytes: [UInt8], options: LoadOptions, path: String?) throws -> Image {
        try read(bytes, path: path, libheif: { handle in
            try HEIFDecoder.checkBeforeDecoding(handle, bytes: bytes, format: format, options: options, path: path)
            if AVIFStillDecoder.isLayered(bytes), AVIFStillDecoder.facts(of: bytes)?.transformed == false {
                // The operating point's layer, with the profile, EXIF and XMP libheif reads.
                return try AVIFStillDecoder.decode(bytes, options: options, path: path, metadata: HEIFDecoder.decodingMetadata(of: handle))
            }
            return try HEIFDecoder.decode(handle, expandingLimitedRangeGray: AVIFStillFacts.read(bytes)?.limitedRangeGray == true,
                                          options: options, path: path)
        }, libavif: { _ in
            try HEIFDecoder.checkTruncation(bytes, format: format, options: options, path: path)
            return try AVIFStillDecoder.decode(bytes, options: options, path: path)
        })
    }

    func metadata(of bytes: [UInt8], path: String?) throws -> ImageMetadata {
        try read(bytes, path: path, libheif: HEIFDecoder.metadata(of:), libavif: { facts in ImageMetadata(sourceProfile: facts.profile) })
    }

    func codingFacts(of bytes: [UInt8]) -> CodingFacts {
        let facts = try? read(bytes, path: nil, libheif: { handle in
            var coding = HEIFDecoder.codingFacts(of: handle)
            if let sequence = sequence(in: bytes, still: HEIFDecoder.statedSize(of: handle)) {
                coding.delays = sequence.delays
                coding.plays = AVIFFrameDecoder.plays
            }
            return coding
        }, libavif: { facts in
            var coding = CodingFacts()
            coding.hasAlpha = facts.alpha
            coding.channels = facts.alpha ? 4 : 3
            coding.colorSpace = "YCbCr"
            coding.bitDepth = facts.bitDepth
            if facts.frameCount > 1 {
                coding.delays = facts.delays
                coding.plays = AVIFFrameDecoder.plays
            }
            return coding
        })
        return facts ?? CodingFacts()
    }

    func frameDecoder(for bytes: [UInt8], canvas: Size?, options: LoadOptions, failOnDamage: Bool, path: String?) throws -> (any AnimationDecoder)? {
        try AVIFFrameDecoder(bytes: bytes, canvas: canvas, failOnDamage: failOnDamage, path: path)
    }

    func encode(_ image: Image, options: SaveOptions, metadata: OutputMetadata, cancellation: Cancellation?) throws -> [UInt8] {
        try AVIFEncoder.encode(image, quality: options.quality(for: .avif), speed: options.speed, chroma: options.chroma,
                               lossless: options.lossless ?? false, metadata: metadata)
    }

    func animationEncoder(options: SaveOptions, plays: Int?) -> (any AnimationEncoder)? { AVIFAnimationEncoder(options: options) }

    /// A sequence holds no loop count: libavif 0.11 writes none, and browsers play it forever.
    func loopRefusal(_ loop: Int) -> String? {
        guard loop != 0 else { return nil }
        return "loop=\(loop): an AVIF sequence holds no loop count here (libavif 0.11 writes none, and browsers play it forever); write GIF or WebP, or say loop=0"
    }

    /// The one choice of the library that reads an AVIF's still picture: libheif, which applies
    /// the container's turn, mirror and crop, unless it refuses the file and libavif reads it (a
    /// sequence without a still image's brands: `AVIFStillDecoder`). A layered picture libheif
    /// reads is decoded by libavif all the same when it needs no turn (`decode`).
    private func read<T>(_ bytes: [UInt8], path: String?, libheif: (OpaquePointer) throws -> T,
                         libavif: (AVIFStillDecoder.Facts) throws -> T) throws -> T {
        try HEIFDecoder.withPrimary(bytes, format: format, compression: Self.compression, path: path, refused: { error in
            guard let facts = AVIFStillDecoder.facts(of: bytes) else { throw error }
            return try libavif(facts)
        }, libheif)
    }

    /// An image sequence of more than one frame, read by libavif (`AVIFFrameDecoder`), when its
    /// frames are the `still` image's size and need no turn, mirror or crop (libheif applies
    /// them to the still image, libavif to no frame); else the file is read as its still image.
    private func sequence(in bytes: [UInt8], still: Size) -> AVIFFrameDecoder.Track? {
        guard let track = AVIFFrameDecoder.track(in: bytes), track.frameCount > 1, track.size == still, !track.transformed else { return nil }
        return track
    }

    /// 50, as sharp and libvips (AV1's scale is not JPEG's: 50 looks like JPEG 80–90).
    var defaultQuality: Int { 50 }

    /// Speed 0 12.9, speed 2 5.3, speed 5 0.4.
    func encoderSeconds(options: SaveOptions) -> Double {
        let bySpeed: [Double] = [13, 9, 5.5, 3, 1.5, 0.8, 0.5, 0.4, 0.3, 0.3, 0.3]
        return bySpeed[min(max(options.speed, 0), 10)]
    }
}
