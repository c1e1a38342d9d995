/// Animated JPEG XL through libjxl (`JXLWriter`): every frame a whole canvas, shown for its delay
/// in milliseconds (the animation ticks a thousand times a second), the loop count as asked or
/// as the input said (0 forever, libjxl's `num_loops`); the first frame decides whether the file
/// has alpha, as an AVIF sequence's does.
final class JXLAnimationEncoder: AnimationEncoder {
    private let options: SaveOptions
    private let plays: Int?
    private var writer: JXLWriter?
    private var size: Size?
    private var alpha = false
    private var frameCount = 0

    init(options: SaveOptions, plays: Int?) {
        self.options = options
        self.plays = plays
    }

    func add(_ image: Image, delay: Int) throws {
        if let size {
            guard image.size == size else {
                throw ImageError(.unwritable, reason: "frame \(frameCount) is \(image.size) where the first frame was \(size); every frame of an animated JPEG XL has the canvas's size")
            }
        } else {
            let lossless = options.lossless ?? false
            let made = try JXLWriter(quality: options.quality(for: .jxl), effort: options.effort(for: .jxl), lossless: lossless)
            try made.start(size: image.size, alpha: image.hasAlpha, lossless: lossless, icc: nil, animationPlays: options.loop ?? plays ?? 0)
            writer = made
            size = image.size
            alpha = image.hasAlpha
        }
        // A 0 duration would fold the frame into the next (a layer): a GIF's 0 delay is shown as
        // browsers show it, 100 ms, as an AVIF sequence writes it.
        try writer!.add(image, alpha: alpha, ticks: UInt32(min(delay > 0 ? delay : 100, Int(UInt32.max))))
        frameCount += 1
    }

    func finish() throws -> ByteChunks {
        guard let writer else { throw ImageError(.unwritable, reason: "an animation with no frames") }
        let bytes = try writer.finish()
        var chunks = ByteChunks()
        bytes.withUnsafeBufferPointer { chunks.append(contentsOf: $0) }
        return chunks
    }
}
