import CAvif

/// An AVIF image sequence's frames through libavif's decoder (libheif 1.15 reads only the still
/// items, the first frame of a sequence). libavif reads the track, decodes each sample with dav1d
/// or libaom and converts it to 8-bit RGBA with the sequence's own matrix and range; a frame
/// lasts its sample's duration.
///
/// The container says nothing of looping that libavif 0.11 can read: browsers play such a
/// sequence forever, so `plays` says forever, and a GIF or WebP written from it loops as the
/// browser showed it.
final class AVIFFrameDecoder: AnimationDecoder {
    /// What the container's track says, read without decoding any frame.
    struct Track {
        var frameCount: Int
        var size: Size
        /// Whether the container turns, mirrors or crops the pictures (`irot`, `imir`, `clap`),
        /// which libheif applies to the still image and libavif to no frame.
        var transformed: Bool
        /// Each frame's duration in milliseconds.
        var delays: [Int]
    }

    /// libavif reads the file from this copy for as long as the decoder lives.
    private let data: UnsafeMutableBufferPointer<UInt8>
    private let decoder: UnsafeMutablePointer<avifDecoder>
    private let path: String?
    private let failOnDamage: Bool
    let canvas: Size
    /// Forever, as browsers play a sequence that says nothing (see above).
    static let plays = 0
    var plays: Int? { Self.plays }
    private var frameIndex = 0

    /// `canvas`, when known from the header, bounds what the AV1 decoder may allocate for a frame:
    /// a sample whose own header claims more pixels is refused before it is decoded.
    init(bytes: [UInt8], canvas expected: Size?, failOnDamage: Bool, path: String?) throws {
        self.path = path
        self.failOnDamage = failOnDamage
        data = .allocate(capacity: max(bytes.count, 1))
        _ = data.initialize(from: bytes)
        do {
            decoder = try Self.parsed(UnsafeBufferPointer(data), count: bytes.count, sizeLimit: expected?.pixelCount, path: path)
        } catch {
            data.deallocate()
            throw error
        }
        canvas = Size(Int(decoder.pointee.image.pointee.width), Int(decoder.pointee.image.pointee.height))
    }

    deinit {
        avifDecoderDestroy(decoder)
        data.deallocate()
    }

    /// The frame count and durations of the sequence in `bytes`; nil when libavif cannot be
    /// opened or does not read the file (the still path says why, through libheif).
    static func track(in bytes: [UInt8]) -> Track? {
        bytes.withUnsafeBufferPointer { buffer in
            guard let decoder = try? parsed(buffer, count: bytes.count, sizeLimit: nil, path: nil) else { return nil }
            defer { avifDecoderDestroy(decoder) }
            let count = Int(decoder.pointee.imageCount)
            let delays = (0..<count).map { index in
                var timing = avifImageTiming()
                return avifDecoderNthImageTiming(decoder, UInt32(index), &timing) == AVIF_RESULT_OK ? milliseconds(timing) : 0
            }
            let image = decoder.pointee.image.pointee
            return Track(frameCount: count, size: Size(Int(image.width), Int(image.height)),
                         transformed: image.transformFlags & (AVIF_TRANSFORM_CLAP.rawValue | AVIF_TRANSFORM_IROT.rawValue | AVIF_TRANSFORM_IMIR.rawValue) != 0,
                         delays: delays)
        }
    }

    func next() throws -> AnimationFrame? {
        guard frameIndex < Int(decoder.pointee.imageCount) else { return nil }
        let result = avifDecoderNextImage(decoder)
        guard result == AVIF_RESULT_OK else {
            if !failOnDamage && frameIndex > 0 { return nil }
            throw ImageError(.corrupt, path: path, reason: "AVIF frame \(frameIndex) cannot be decoded: \(String(cString: avifResultToString(result)))")
        }
        let picture = decoder.pointee.image!
        // Every sample carries its own sequence header: one that disagrees with the track's size
        // would not fit the canvas.
        guard Size(Int(picture.pointee.width), Int(picture.pointee.height)) == canvas else {
            throw ImageError(.corrupt, path: path, reason: "AVIF frame \(frameIndex) is \(picture.pointee.width)x\(picture.pointee.height), the sequence is \(canvas)")
        }
        let image = try Self.image(of: picture, size: canvas, path: path, what: "AVIF frame \(frameIndex)")
        frameIndex += 1
        return AnimationFrame(image: image, delay: Self.milliseconds(decoder.pointee.imageTiming))
    }

    /// The 8-bit RGB(A) picture of a decoded AV1 `picture` of `size` (alpha kept when any pixel
    /// is not opaque), converted with its own matrix and range by libavif's own arithmetic: its
    /// libyuv shortcut (libyuv 2023-01 on Debian 12) rounds BT.709's blue coefficient, and blue
    /// came out 6–7 levels low on average against the formula (BT.709 limited range, 4:2:0).
    static func image(of picture: UnsafeMutablePointer<avifImage>, size: Size, path: String?, what: String) throws -> Image {
        var rgb = avifRGBImage()
        avifRGBImageSetDefaults(&rgb, picture)
        rgb.depth = 8
        rgb.format = AVIF_RGB_FORMAT_RGBA
        rgb.avoidLibYUV = AVIF_TRUE
        rgb.chromaUpsampling = AVIF_CHROMA_UPSAMPLING_BILINEAR
        avifRGBImageAllocatePixels(&rgb)
        defer { avifRGBImageFreePixels(&rgb) }
        let converted = avifImageYUVToRGB(picture, &rgb)
        guard converted == AVIF_RESULT_OK, let pixels = rgb.pixels, Int(rgb.rowBytes) == size.width * 4 else {
            throw ImageError(.corrupt, path: path, reason: "\(what) cannot be converted to RGB: \(String(cString: avifResultToString(converted)))")
        }
        if AVIFStillFacts.isLimitedRangeGray(picture.pointee) { AVIFStillFacts.expandLimitedRange(pixels, size: size, rowStride: Int(rgb.rowBytes), channels: 4) }
        return try AnimationDecoding.image(ofRGBA: UnsafeBufferPointer(start: pixels, count: size.pixelCount * 4), size: size)
    }

    /// A decoder that has read the container of the `count` bytes at `buffer` (which must outlive
    /// it); the caller destroys it.
    static func parsed(_ buffer: UnsafeBufferPointer<UInt8>, count: Int, sizeLimit: Int?, path: String?,
                       source: avifDecoderSource = AVIF_DECODER_SOURCE_AUTO) throws -> UnsafeMutablePointer<avifDecoder> {
        if let reason = imagepipe_open_libavif() {
            throw ImageError(.unsupported, path: path, reason: "an AVIF sequence needs libavif, which cannot be opened: \(String(cString: reason))")
        }
        guard let decoder = avifDecoderCreate() else { throw ImageError(.tooLarge, path: path, reason: "libavif could not make a decoder") }
        decoder.pointee.maxThreads = Int32(max(1, System.coreCount))
        decoder.pointee.ignoreExif = AVIF_TRUE
        decoder.pointee.ignoreXMP = AVIF_TRUE
        // As lenient as libheif, which reads the still image: a sequence libavif's conformance
        // checks refuse (a missing `pixi`, say) would otherwise be read as its first frame alone.
        decoder.pointee.strictFlags = avifStrictFlags(AVIF_STRICT_DISABLED.rawValue)
        decoder.pointee.requestedSource = source
        if let sizeLimit, sizeLimit > 0, sizeLimit < Int(decoder.pointee.imageSizeLimit) { decoder.pointee.imageSizeLimit = UInt32(sizeLimit) }
        var result = avifDecoderSetIOMemory(decoder, buffer.baseAddress, count)
        if result == AVIF_RESULT_OK { result = avifDecoderParse(decoder) }
        guard result == AVIF_RESULT_OK, decoder.pointee.image != nil, decoder.pointee.imageCount > 0 else {
            avifDecoderDestroy(decoder)
            throw ImageError(.corrupt, path: path, reason: "libavif cannot read the AVIF's frames: \(String(cString: avifResultToString(result)))")
        }
        return decoder
    }

    /// A duration in whole milliseconds, as GIF and WebP store theirs.
    private static func milliseconds(_ timing: avifImageTiming) -> Int {
        guard timing.duration.isFinite, timing.duration > 0 else { return 0 }
        return Int(min(timing.duration * 1000, Double(Int32.max)).rounded())
    }
}
