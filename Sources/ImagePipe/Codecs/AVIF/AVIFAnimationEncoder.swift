import CAvif

/// AVIF image sequences through libavif (`avifEncoderAddImage`), at `save`'s quality, speed,
/// chroma and lossless settings; each frame's duration in milliseconds. libavif 0.11 writes no
/// loop count (a sequence plays as its reader decides, browsers loop it); the first frame
/// decides whether the sequence has alpha.
final class AVIFAnimationEncoder: AnimationEncoder {
    private let options: SaveOptions
    private var encoder: UnsafeMutablePointer<avifEncoder>?
    private var size: Size?
    private var alpha = false
    private var frameCount = 0

    init(options: SaveOptions) {
        self.options = options
    }

    deinit {
        if let encoder { avifEncoderDestroy(encoder) }
    }

    func add(_ image: Image, delay: Int) throws {
        let quality = options.quality(for: .avif), lossless = options.lossless ?? false
        if let size {
            guard image.size == size else {
                throw ImageError(.unwritable, reason: "frame \(frameCount) is \(image.size) where the first frame was \(size); every frame of an AVIF sequence has the canvas's size")
            }
        } else {
            let made = try AVIFEncoder.encoder(quality: quality, speed: options.speed, lossless: lossless)
            made.pointee.timescale = 1000
            encoder = made
            size = image.size
            alpha = image.hasAlpha
        }
        let avif = try AVIFEncoder.picture(image, format: AVIFEncoder.pixelFormat(quality: quality, chroma: options.chroma, lossless: lossless),
                                           lossless: lossless, metadata: OutputMetadata(), alpha: alpha)
        defer { avifImageDestroy(avif) }
        // A zero duration is no frame at all to a sequence: a GIF's 0 delay is shown as browsers show it, 100 ms.
        let result = avifEncoderAddImage(encoder, avif, UInt64(delay > 0 ? delay : 100), avifAddImageFlags(AVIF_ADD_IMAGE_FLAG_NONE.rawValue))
        guard result == AVIF_RESULT_OK else { throw AVIFEncoder.failure("encode frame \(frameCount)", result) }
        frameCount += 1
    }

    func finish() throws -> ByteChunks {
        guard let encoder else { throw ImageError(.unwritable, reason: "an animation with no frames") }
        var output = avifRWData()
        defer { avifRWDataFree(&output) }
        let result = avifEncoderFinish(encoder, &output)
        guard result == AVIF_RESULT_OK else { throw AVIFEncoder.failure("finish the sequence", result) }
        var chunks = ByteChunks()
        chunks.append(contentsOf: UnsafeBufferPointer(start: output.data, count: output.size))
        return chunks
    }
}
