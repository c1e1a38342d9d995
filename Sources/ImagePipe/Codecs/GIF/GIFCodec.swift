/// GIF: giflib reads it, a still picture being the first frame composed as an animation's
/// (`GIFFrameDecoder`), its LZW codes checked by ImagePipe (`GIFDataCheck`); cgif with
/// libimagequant writes it.
struct GIFCodec: Codec {
    var format: ImageFormat { .gif }
    var capabilities: CodecCapabilities {
        CodecCapabilities(reader: "giflib", writer: "cgif with libimagequant", fileExtensions: ["gif"], mediaType: "image/gif", wholeFile: true,
                          frames: true)
    }

    func header(of bytes: [UInt8], options: LoadOptions, path: String?) throws -> ImageHeader {
        try GIFFrameCounter.header(of: bytes, path: path)
    }

    /// Read to the end, to count the frames; none of them is kept.
    func headerReader(file: OpenedFile?, options: LoadOptions, path: String) throws -> any HeaderReader { GIFFrameCounter() }

    func decode(_ bytes: [UInt8], options: LoadOptions, path: String?) throws -> Image {
        let frame = try FirstFrame(gif: bytes, path: path)
        // giflib decodes codes that were never defined as if they were the next one: the
        // first frame's codes are walked first, and such a frame refused.
        if options.refuses(.error), let damage = GIFDataCheck.damage(in: frame) { throw ImageError(.corrupt, path: path, reason: damage) }
        // Later frames are not decoded, so a file cut inside one is found here.
        if let cut = frame.gifCut, options.refuses(cut.level) { throw ImageError(.corrupt, path: path, reason: cut.reason) }
        // The first frame, decoded by giflib and composed on the canvas the header gave, as the
        // frames of an animation are.
        let header = try GIFFrameCounter.header(of: bytes, path: path)
        try header.checkPixels(limit: options.maxPixels, path: path)
        try options.checkDeadline(path: path)
        let decoder = try GIFFrameDecoder(input: GIFFrameDecoder.Input(bytes: frame.bytes), canvas: header.storedSize, options: options,
                                          failOnDamage: options.failOnDamage, path: path)
        guard let first = try decoder.next() else { throw ImageError(.corrupt, path: path, reason: "the GIF holds no frame") }
        return first.image
    }

    func codingFacts(of bytes: [UInt8]) -> CodingFacts { .gif(bytes) }

    func frameDecoder(for bytes: [UInt8], canvas: Size?, options: LoadOptions, failOnDamage: Bool, path: String?) throws -> (any AnimationDecoder)? {
        try GIFFrameDecoder(input: .init(bytes: bytes), canvas: canvas, options: options, failOnDamage: failOnDamage, path: path)
    }

    /// A regular file is read as its frames are decoded.
    func frameDecoder(path: String, canvas: Size?, options: LoadOptions, failOnDamage: Bool) throws -> (any AnimationDecoder)? {
        guard ImageFile.isRegularFile(path) else {
            return try frameDecoder(for: ImageFile.readPicture(path: path, options: options), canvas: canvas, options: options,
                                    failOnDamage: failOnDamage, path: path)
        }
        return try GIFFrameDecoder(input: .init(path: path, limit: options.maxInputBytes), canvas: canvas, options: options,
                                   failOnDamage: failOnDamage, path: path)
    }

    func encode(_ image: Image, options: SaveOptions, metadata: OutputMetadata, cancellation: Cancellation?) throws -> [UInt8] {
        try GIFEncoder.encode(image, colors: options.paletteColors, dither: options.dither)
    }

    func animationEncoder(options: SaveOptions, plays: Int?) -> (any AnimationEncoder)? {
        GIFAnimationEncoder(colors: options.paletteColors, dither: options.dither, plays: plays, delayAsked: options.delay != nil)
    }

    var longestSide: (pixels: Int, by: String)? { (65_535, "its sizes are 16-bit") }

    func encoderSeconds(options: SaveOptions) -> Double { 0.5 }
}
