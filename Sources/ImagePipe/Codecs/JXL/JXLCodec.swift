/// JPEG XL through libjxl, both ways, from the whole file in memory (`JXLDecoder`,
/// `JXLFrameDecoder`, `JXLEncoder`, `JXLAnimationEncoder`).
struct JXLCodec: Codec {
    var format: ImageFormat { .jxl }
    var capabilities: CodecCapabilities {
        CodecCapabilities(reader: "libjxl", writer: "libjxl", fileExtensions: ["jxl"], mediaType: "image/jxl", wholeFile: true, frames: true,
                          metadata: ["exif", "icc", "xmp"], writtenMetadata: ["exif", "icc", "xmp"])
    }

    func header(of bytes: [UInt8], options: LoadOptions, path: String?) throws -> ImageHeader { try JXLDecoder.header(of: bytes, path: path) }

    func decode(_ bytes: [UInt8], options: LoadOptions, path: String?) throws -> Image { try JXLDecoder.decode(bytes, options: options, path: path) }

    func metadata(of bytes: [UInt8], path: String?) throws -> ImageMetadata { try JXLDecoder.metadata(of: bytes, path: path) }

    func codingFacts(of bytes: [UInt8]) -> CodingFacts { JXLDecoder.codingFacts(of: bytes) }

    func frameDecoder(for bytes: [UInt8], canvas: Size?, options: LoadOptions, failOnDamage: Bool, path: String?) throws -> (any AnimationDecoder)? {
        try JXLFrameDecoder(bytes: bytes, options: options, failOnDamage: failOnDamage, path: path)
    }

    func encode(_ image: Image, options: SaveOptions, metadata: OutputMetadata, cancellation: Cancellation?) throws -> [UInt8] {
        try JXLEncoder.encode(image, quality: options.quality(for: .jxl), effort: options.effort(for: .jxl), lossless: options.lossless ?? false,
                              metadata: metadata)
    }

    func animationEncoder(options: SaveOptions, plays: Int?) -> (any AnimationEncoder)? { JXLAnimationEncoder(options: options, plays: plays) }

    /// 7, as cjxl and libvips.
    var defaultEffort: Int { JXLWriter.defaultEffort }

    var effortRange: ClosedRange<Int>? { 1...9 }

    /// Measured on two shared cores at effort 7 (Benchmarks/jxl_compare.py): lossy 0.9–1.7,
    /// lossless 7.4–11.3 s a megapixel; efforts 8 and 9, unmeasured, taken as far slower.
    func encoderSeconds(options: SaveOptions) -> Double {
        let effort = options.effort(for: .jxl)
        if options.lossless == true { return effort <= 3 ? 1 : effort <= 6 ? 4 : effort == 7 ? 12 : 40 }
        return effort <= 6 ? 0.6 : effort == 7 ? 1.8 : 6
    }
}
