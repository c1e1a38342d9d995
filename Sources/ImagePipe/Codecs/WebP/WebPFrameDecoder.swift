import CWebP

/// An animated WebP's frames through libwebp's animation decoder, which composes each frame onto
/// the canvas (blending and disposal) as browsers do; a still WebP is one frame. Delays come from
/// the frames' end times. libwebp decodes a frame in one call, which cannot be stopped: the
/// deadline and the run's cancellation are checked before each (its frames lie within the canvas,
/// which the plan counted against the pixel limit).
final class WebPFrameDecoder: AnimationDecoder {
    /// libwebp reads the file from this copy for as long as the decoder lives.
    private let data: UnsafeMutableBufferPointer<UInt8>
    private let decoder: OpaquePointer
    private let path: String?
    private let failOnDamage: Bool
    /// The deadline of the run.
    private let options: LoadOptions
    let canvas: Size
    let plays: Int?
    private var frameIndex = 0
    private var lastTimestamp: Int32 = 0

    init(bytes: [UInt8], options: LoadOptions, failOnDamage: Bool, path: String?) throws {
        self.path = path
        self.options = options
        self.failOnDamage = failOnDamage
        data = .allocate(capacity: max(bytes.count, 1))
        _ = data.initialize(from: bytes)
        var options = WebPAnimDecoderOptions()
        guard WebPAnimDecoderOptionsInit(&options) != 0 else {
            data.deallocate()
            throw ImageError(.unsupported, path: path, reason: "libwebp's animation decoder does not match its header (library version mismatch)")
        }
        options.color_mode = MODE_RGBA
        options.use_threads = 0
        var webp = WebPData(bytes: data.baseAddress, size: bytes.count)
        guard let decoder = WebPAnimDecoderNew(&webp, &options) else {
            data.deallocate()
            throw ImageError(.corrupt, path: path, reason: "libwebp cannot read the WebP's frames (damaged or cut short)")
        }
        self.decoder = decoder
        var info = WebPAnimInfo()
        guard WebPAnimDecoderGetInfo(decoder, &info) != 0, info.canvas_width > 0, info.canvas_height > 0 else {
            WebPAnimDecoderDelete(decoder)
            data.deallocate()
            throw ImageError(.corrupt, path: path, reason: "the WebP's canvas cannot be read")
        }
        canvas = Size(Int(info.canvas_width), Int(info.canvas_height))
        plays = Int(info.loop_count)
    }

    deinit {
        WebPAnimDecoderDelete(decoder)
        data.deallocate()
    }

    func next() throws -> AnimationFrame? {
        guard WebPAnimDecoderHasMoreFrames(decoder) != 0 else { return nil }
        try options.checkDeadline(path: path)
        try StageContext.checkCancelled()
        var rgba: UnsafeMutablePointer<UInt8>?
        var timestamp: Int32 = 0
        guard WebPAnimDecoderGetNext(decoder, &rgba, &timestamp) != 0, let rgba else {
            if !failOnDamage && frameIndex > 0 { return nil }
            throw ImageError(.corrupt, path: path, reason: "WebP frame \(frameIndex) cannot be decoded (damaged or cut short)")
        }
        frameIndex += 1
        defer { lastTimestamp = timestamp }
        let image = try AnimationDecoding.image(ofRGBA: UnsafeBufferPointer(start: rgba, count: canvas.pixelCount * 4), size: canvas)
        return AnimationFrame(image: image, delay: Int(timestamp - lastTimestamp))
    }
}
