/// Animated PNG writing: every frame encoded whole by the PNG encoder (`PNGEncoder`, libdeflate),
/// its IDAT data kept as the frame's data (IDAT for the first frame, which is also the still
/// picture older readers show, fdAT after it), each frame drawn with blend `source` and
/// disposal `none`, so that any reader shows the frames as they came.
///
/// Every frame shares one IHDR, so one color type: frames are RGB until one has alpha, and then
/// the frames before it are decoded back and written again as RGBA (an animation whose first
/// frames are opaque is rare: most have alpha in every frame or in none).
final class APNGEncoder: AnimationEncoder {
    private let compression: Int
    private let plays: Int?
    private var size: Size?
    private var alpha = false
    /// Each frame's delay and compressed rows, as the PNG encoder made them.
    private var frames: [(delay: Int, data: [UInt8])] = []

    init(options: SaveOptions, plays: Int?) {
        compression = options.compression
        self.plays = plays
    }

    func add(_ image: Image, delay: Int) throws {
        if let size {
            guard image.size == size else {
                throw ImageError(.unwritable, reason: "frame \(frames.count) is \(image.size) where the first frame was \(size); every frame of an APNG has the canvas's size")
            }
        } else {
            size = image.size
            alpha = image.hasAlpha
        }
        if image.hasAlpha, !alpha {
            alpha = true
            frames = try frames.map { frame in (frame.delay, try Self.withAlpha(frame.data, size: image.size, compression: compression)) }
        }
        frames.append((delay, try Self.imageData(of: alpha && !image.hasAlpha ? Self.opaqueRGBA(image) : image, compression: compression)))
    }

    func finish() throws -> ByteChunks {
        guard let size, !frames.isEmpty else { throw ImageError(.unwritable, reason: "an animation with no frames") }
        var png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        var header: [UInt8] = []
        header.appendBigEndian(UInt32(size.width))
        header.appendBigEndian(UInt32(size.height))
        PNGEncoder.appendChunk("IHDR", (header + [8, alpha ? 6 : 2, 0, 0, 0])[...], to: &png)
        var control: [UInt8] = []
        control.appendBigEndian(UInt32(frames.count))
        // APNG's play count is the number of showings, 0 forever; a file that did not say plays once.
        control.appendBigEndian(UInt32(min(plays ?? 1, Int(Int32.max))))
        PNGEncoder.appendChunk("acTL", control[...], to: &png)
        var chunks = ByteChunks()
        var sequence = 0
        for (index, frame) in frames.enumerated() {
            let delay = APNGFrameControl.fraction(milliseconds: frame.delay)
            let fcTL = APNGFrameControl(sequence: sequence, width: size.width, height: size.height, x: 0, y: 0, delayNumerator: delay.numerator,
                                        delayDenominator: delay.denominator, dispose: .none, blend: .source)
            PNGEncoder.appendChunk("fcTL", fcTL.bytes[...], to: &png)
            sequence += 1
            if index == 0 {
                PNGEncoder.appendChunk("IDAT", frame.data[...], to: &png)
            } else {
                var data: [UInt8] = []
                data.reserveCapacity(frame.data.count + 4)
                data.appendBigEndian(UInt32(sequence))
                data += frame.data
                PNGEncoder.appendChunk("fdAT", data[...], to: &png)
                sequence += 1
            }
            png.withUnsafeBufferPointer { chunks.append(contentsOf: $0) }
            png = []
            frames[index].data = [] // the bytes are in `chunks` now
        }
        PNGEncoder.appendChunk("IEND", [][...], to: &png)
        png.withUnsafeBufferPointer { chunks.append(contentsOf: $0) }
        return chunks
    }

    /// The compressed rows of `image` as the PNG encoder makes them: its IDAT chunks' data, joined.
    private static func imageData(of image: Image, compression: Int) throws -> [UInt8] {
        let png = try PNGEncoder.encode(image, compression: compression)
        var data: [UInt8] = []
        var offset = 8
        while offset + 12 <= png.count {
            let length = png[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            if png[offset + 4..<offset + 8].elementsEqual("IDAT".utf8) { data += png[offset + 8..<offset + 8 + length] }
            offset += 12 + length
        }
        return data
    }

    /// An RGB frame's compressed rows written again as RGBA: decoded back, made opaque RGBA.
    private static func withAlpha(_ data: [UInt8], size: Size, compression: Int) throws -> [UInt8] {
        var png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        var header: [UInt8] = []
        header.appendBigEndian(UInt32(size.width))
        header.appendBigEndian(UInt32(size.height))
        PNGEncoder.appendChunk("IHDR", (header + [8, 2, 0, 0, 0])[...], to: &png)
        PNGEncoder.appendChunk("IDAT", data[...], to: &png)
        PNGEncoder.appendChunk("IEND", [][...], to: &png)
        let decoded = try PNGDecoder.decode(.bytes(png), orientation: 1, options: LoadOptions(applyOrientation: false, maxPixels: nil), path: nil)
        return try imageData(of: opaqueRGBA(decoded), compression: compression)
    }

    private static func opaqueRGBA(_ image: Image) throws -> Image {
        try Image.make(size: image.size, hasAlpha: true) { writer in
            for y in 0..<image.height {
                let source = image.row(y), target = writer.row(y)
                for x in 0..<image.width {
                    target[x * 4] = source[x * 3]
                    target[x * 4 + 1] = source[x * 3 + 1]
                    target[x * 4 + 2] = source[x * 3 + 2]
                    target[x * 4 + 3] = 255
                }
            }
        }
    }
}
