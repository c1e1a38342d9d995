import CJXL

/// An animated JPEG XL's frames through libjxl, one at a time: libjxl composes each frame onto
/// the canvas (blending, crops and zero-duration layers, its "coalescing"), so every frame is a
/// whole canvas; a frame lasts its duration in the animation's ticks. Each frame is turned by
/// the codestream's orientation when the load applies it, and converted to sRGB from the
/// pixels' profile, as a still decode is.
final class JXLFrameDecoder: AnimationDecoder {
    private let stream: JXLStream
    private let options: LoadOptions
    private let failOnDamage: Bool
    private var profile: [UInt8]?
    private var frameIndex = 0
    private var finished = false
    let canvas: Size
    let plays: Int?

    init(bytes: [UInt8], options: LoadOptions, failOnDamage: Bool, path: String?) throws {
        stream = try JXLStream(bytes: bytes, events: [JXL_DEC_BASIC_INFO, JXL_DEC_COLOR_ENCODING, JXL_DEC_FRAME, JXL_DEC_FULL_IMAGE],
                               threaded: true, path: path)
        self.options = options
        self.failOnDamage = failOnDamage
        // The headers before the first frame: size, channels and color.
        guard try stream.next() == .basicInfo else { throw stream.damaged("it has no header") }
        try JXLDecoder.checkChannels(stream)
        let stored = stream.storedSize
        try ImageHeader(storedSize: stored, format: .jxl).checkPixels(limit: options.maxPixels, path: path)
        guard try stream.next() == .colorEncoding else { throw stream.damaged("it has no color encoding") }
        profile = stream.pixelProfile()
        let turns = options.applyOrientation && (5...8).contains(Int(stream.info.orientation.rawValue))
        canvas = turns ? stored.transposed : stored
        plays = stream.info.have_animation == JXL_TRUE ? Int(stream.info.animation.num_loops) : nil
    }

    func next() throws -> AnimationFrame? {
        guard !finished else { return nil }
        var pixels: JXLPixels?
        var delay = 0
        while true {
            try options.checkDeadline(path: stream.path)
            switch try stream.next() {
            case .frame: delay = stream.info.have_animation == JXL_TRUE ? stream.milliseconds(ticks: stream.frameHeader.duration) : 0
            case .needImageBuffer: pixels = try JXLPixels(stream: stream)
            case .fullImage:
                guard let pixels else { throw stream.damaged("a frame came without its pixels") }
                frameIndex += 1
                return AnimationFrame(image: try shown(pixels.image), delay: delay)
            case .success:
                finished = true
                return nil
            case .cut:
                finished = true
                if failOnDamage || frameIndex == 0 {
                    throw ImageError(.corrupt, path: stream.path, reason: "the JPEG XL data is cut short within frame \(frameIndex)")
                }
                return nil
            case .basicInfo, .colorEncoding: continue
            }
        }
    }

    /// A frame as the still decode gives a picture: upright and in sRGB.
    private func shown(_ frame: Image) throws -> Image {
        var metadata = ImageMetadata(sourceProfile: profile)
        let turn = options.applyOrientation ? Int(stream.info.orientation.rawValue) : 1
        metadata.orientationApplied = turn != 1
        return try Image.colorManaged(frame.orientedByExif(turn), metadata: metadata, options: options, path: stream.path)
    }
}
