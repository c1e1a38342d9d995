/// WebP through libwebp: its incremental decoder fed from the file (`WebPDecoder`), the header
/// ImagePipe's own walk of the RIFF chunks, animations by libwebpdemux and libwebpmux.
struct WebPCodec: Codec {
    var format: ImageFormat { .webp }
    var capabilities: CodecCapabilities {
        CodecCapabilities(reader: "libwebp", writer: "libwebp", fileExtensions: ["webp"], mediaType: "image/webp", rowsInOrder: true, frames: true,
                          metadata: ["exif", "icc", "xmp"], writtenMetadata: ["exif", "icc", "xmp"])
    }

    func header(of bytes: [UInt8], options: LoadOptions, path: String?) throws -> ImageHeader {
        try WebPDecoder.header(of: .bytes(bytes), path: path)
    }

    /// The RIFF chunks are walked in the file.
    func headerReader(file: OpenedFile?, options: LoadOptions, path: String) throws -> any HeaderReader {
        guard let file else { return PrefixHeaderReader.wholeFile(options: options, path: path) }
        return PrefixHeaderReader.fromFile { try WebPDecoder.header(of: .file(file), path: path) }
    }

    func decode(_ bytes: [UInt8], options: LoadOptions, path: String?) throws -> Image {
        try WebPDecoder.decode(.bytes(bytes), options: options, path: path)
    }

    func decode(file: OpenedFile, header: ImageHeader, options: LoadOptions, path: String) throws -> Image {
        try WebPDecoder.decode(.file(file), options: options, path: path)
    }

    func metadata(of bytes: [UInt8], path: String?) throws -> ImageMetadata { MetadataScanner.metadata(of: bytes, format: format) }

    func codingFacts(of bytes: [UInt8]) -> CodingFacts { .webp(bytes) }

    func frameDecoder(for bytes: [UInt8], canvas: Size?, options: LoadOptions, failOnDamage: Bool, path: String?) throws -> (any AnimationDecoder)? {
        try WebPFrameDecoder(bytes: bytes, options: options, failOnDamage: failOnDamage, path: path)
    }

    func rowSource(path: String, header: ImageHeader, options: LoadOptions) throws -> RowSource? {
        guard let file = try header.source ?? OpenedFile.open(path: path, limit: options.maxInputBytes) else { return nil }
        return RowSource { handoff in try WebPDecoder.decode(.file(file), options: options, path: path, handoff: handoff) }
    }

    /// libwebp writes into one picture-sized buffer.
    func bandRows(of header: ImageHeader, height: Int) -> Int? { height }

    func encode(_ image: Image, options: SaveOptions, metadata: OutputMetadata, cancellation: Cancellation?) throws -> [UInt8] {
        try WebPEncoder.encode(image, quality: options.quality(for: .webp), lossless: options.lossless ?? false, nearLossless: options.nearLossless,
                               effort: options.effort(for: .webp), alphaQuality: options.alphaQuality, metadata: metadata,
                               cancellation: cancellation)
    }

    func animationEncoder(options: SaveOptions, plays: Int?) -> (any AnimationEncoder)? { WebPAnimationEncoder(options: options, plays: plays) }

    /// libwebp's `WEBP_MAX_DIMENSION`.
    var longestSide: (pixels: Int, by: String)? { (16_383, "libwebp's limit") }

    /// 4, as sharp and libvips.
    var defaultEffort: Int { 4 }

    var effortRange: ClosedRange<Int>? { 0...6 }

    /// 80, as sharp and Pillow: the same bytes as sharp's defaults at the same SSIM on 640-px
    /// thumbnails (chosen on 12 photos, checked on 11 others, Benchmarks/save_defaults.py); 90
    /// made 1.6× the bytes.
    var defaultQuality: Int { 80 }

    /// Lossless at effort 6 0.7, lossy 0.18.
    func encoderSeconds(options: SaveOptions) -> Double {
        options.lossless == true || options.nearLossless ? 0.2 + 0.15 * Double(options.effort(for: .webp)) : 0.3
    }
}
