/// AVIF: the still picture through libheif (AV1 through dav1d or libaom), or libavif where
/// libheif reads it wrongly or not at all (`AVIFStillDecoder`); a sequence's frames through
/// libavif (`AVIFFrameDecoder`); written by libavif.
struct AVIFCodec: Codec {
    var format: SourceFormat { .avif }
    var capabilities: CodecCapabilities {
        CodecCapabilities(reader: "libheif (dav1d or libaom); sequences libavif", writer: "libavif", wholeFile: true, frames: true,
                          metadata: ["exif", "icc", "xmp"])
    }

    func header(of bytes: [UInt8], options: LoadOptions, path: String?) throws -> ImageHeader {
        try HEIFDecoder.header(of: bytes, format: format, path: path)
    }

    func decode(_ bytes: [UInt8], options: LoadOptions, path: String?) throws -> Image {
        try HEIFDecoder.decode(bytes, format: format, options: options, path: path)
    }

    func metadata(of bytes: [UInt8], path: String?) throws -> ImageMetadata { try HEIFDecoder.metadata(of: bytes, format: format, path: path) }

    func codingFacts(of bytes: [UInt8]) -> CodingFacts { (try? HEIFDecoder.codingFacts(of: bytes, format: format, path: nil)) ?? CodingFacts() }

    func frameDecoder(for bytes: [UInt8], canvas: Size?, options: LoadOptions, failOnDamage: Bool, path: String?) throws -> (any AnimationDecoder)? {
        try AVIFFrameDecoder(bytes: bytes, canvas: canvas, failOnDamage: failOnDamage, path: path)
    }

    func encode(_ image: Image, options: SaveOptions, metadata: OutputMetadata, cancellation: Cancellation?) throws -> [UInt8] {
        try AVIFEncoder.encode(image, quality: options.quality(for: .avif), speed: options.speed, chroma: options.chroma,
                               lossless: options.lossless ?? false, metadata: metadata)
    }

    func animationEncoder(options: SaveOptions, plays: Int?) -> (any AnimationEncoder)? { AVIFAnimationEncoder(options: options) }
}
