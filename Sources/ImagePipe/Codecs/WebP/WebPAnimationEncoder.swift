import CWebP

/// Animated WebP writing with libwebp's animation encoder, lossy or lossless as `save` says: it
/// encodes each frame as the rectangle that changed, and picks key frames itself.
final class WebPAnimationEncoder: AnimationEncoder {
    private let options: SaveOptions
    private let plays: Int?
    private var encoder: OpaquePointer?
    private var size: Size?
    /// libwebp's settings for every frame, made with the encoder.
    private var config = WebPConfig()
    private var timestamp = 0
    private var frameCount = 0

    init(options: SaveOptions, plays: Int?) {
        self.options = options
        self.plays = plays
    }

    deinit {
        if let encoder { WebPAnimEncoderDelete(encoder) }
    }

    func add(_ image: Image, delay: Int) throws {
        if let size {
            guard image.size == size else {
                throw ImageError(.unwritable, reason: "frame \(frameCount) is \(image.size) where the first frame was \(size); every frame of a WebP animation has the canvas's size")
            }
        } else {
            var animation = WebPAnimEncoderOptions()
            guard WebPAnimEncoderOptionsInit(&animation) != 0 else {
                throw ImageError(.unwritable, reason: "libwebp's animation encoder does not match its header (library version mismatch)")
            }
            // WebP's loop count is the number of showings, 0 forever; a file that did not say plays once.
            animation.anim_params.loop_count = Int32(min(plays ?? 1, 65_535))
            guard let made = WebPAnimEncoderNew(Int32(image.width), Int32(image.height), &animation) else {
                throw ImageError(.unwritable, reason: "libwebp could not start a \(image.size) animation")
            }
            encoder = made
            size = image.size
            config = try WebPEncoder.configuration(quality: options.quality(for: .webp), lossless: options.lossless ?? false,
                                                   nearLossless: options.nearLossless, effort: options.effort(for: .webp), alphaQuality: options.alphaQuality)
        }
        var picture = try WebPEncoder.picture(of: image, argb: true)
        defer { WebPPictureFree(&picture) }
        guard WebPAnimEncoderAdd(encoder, &picture, Int32(min(timestamp, Int(Int32.max))), &config) != 0 else {
            throw ImageError(.unwritable, reason: "libwebp could not encode frame \(frameCount): \(Self.message(encoder))")
        }
        timestamp += max(delay, 0)
        frameCount += 1
    }

    private static func message(_ encoder: OpaquePointer?) -> String {
        WebPAnimEncoderGetError(encoder).map { String(cString: $0) } ?? "no reason given"
    }

    func finish() throws -> ByteChunks {
        guard let encoder else { throw ImageError(.unwritable, reason: "an animation with no frames") }
        // The last frame's end time: a frame with no pixels at the time the animation ends.
        guard WebPAnimEncoderAdd(encoder, nil, Int32(min(timestamp, Int(Int32.max))), nil) != 0 else {
            throw ImageError(.unwritable, reason: "libwebp could not end the animation: \(Self.message(encoder))")
        }
        var data = WebPData()
        guard WebPAnimEncoderAssemble(encoder, &data) != 0 else {
            throw ImageError(.unwritable, reason: "libwebp could not assemble the animation: \(Self.message(encoder))")
        }
        defer { WebPDataClear(&data) }
        var chunks = ByteChunks()
        chunks.append(contentsOf: UnsafeBufferPointer(start: data.bytes, count: data.size))
        return chunks
    }
}
