import ImagePipe

/// What the decoding fuzzer checks for any bytes: reading the header and decoding never crash,
/// hang or exhaust memory, whatever the format claims; every failure is an `ImageError`; and
/// a picture that decodes has the size its header promised.
public enum DecodeFuzzCheck {
    /// Small limits, so that a test case costs little; the limits themselves are part of what is
    /// tested (a bomb must be refused, not attempted).
    static let options = LoadOptions(maxPixels: 4_000_000, maxInputBytes: 1 << 20)

    /// Checks one input; a broken promise stops the process (so libFuzzer reports it).
    public static func check(_ bytes: UnsafeBufferPointer<UInt8>) {
        let data = Array(bytes)
        let header: ImageHeader
        do {
            header = try ImageHeader.read(bytes: data, options: options)
        } catch is ImageError {
            return
        } catch {
            preconditionFailure("reading a header threw \(error), not an ImageError")
        }
        precondition(header.storedSize.width > 0 && header.storedSize.height > 0, "a header with an empty size: \(header)")
        precondition(ImageFormat.vetted.contains(header.format), "a header in a format not allowed: \(header.format.rawValue)")
        // Damaged data either way: refused at the strictest level, and as what the decoder makes of it.
        for failOn in [FailOn.warning, .none] {
            var options = options
            options.failOn = failOn
            do {
                let image = try Image.decode(data, options: options)
                precondition(image.size == header.decodedSize(applyingOrientation: true),
                             "decoded \(image.size) where the header said \(header.decodedSize(applyingOrientation: true)) (\(header.format))")
            } catch is ImageError {
            } catch {
                preconditionFailure("decoding threw \(error), not an ImageError")
            }
            checkFrames(data, header: header, failOnDamage: failOn != .none)
        }
    }

    /// An animation's frames (giflib, libwebp's animation decoder) decode one at a time, each the
    /// canvas's size, within the pixel limit counted over the frames, or fail with an ImageError;
    /// at the run's limit and at one just above the canvas's size (the plan counts the canvas
    /// once a frame). A GIF frame's own rectangle, read here from the file apart from giflib, may
    /// reach far past the canvas: a frame that decodes is within the limit by its rectangle,
    /// and what the frames decode past the canvas (the rows down to the canvas's bottom, of the
    /// frame's width) is within it, all frames together. An animated WebP's frames lie within its
    /// canvas (libwebp refuses others).
    static func checkFrames(_ data: [UInt8], header: ImageHeader, failOnDamage: Bool) {
        // A run refuses a canvas past the pixel limit before any frame (`Load.describe`).
        let format = header.format
        guard format == .gif || format == .webp,
              let runLimit = options.maxPixels, header.storedSize.pixelCount <= runLimit else { return }
        let frames = format == .gif ? FrameRectangles.gif(data) : FrameRectangles.webp(data)
        for limit in Set([runLimit, header.storedSize.pixelCount + 64]).sorted() {
            var frameOptions = options
            frameOptions.maxPixels = limit
            do {
                guard let decoder = try AnimationDecoding.decoder(for: data, format: format, canvas: header.storedSize, options: frameOptions,
                                                                  failOnDamage: failOnDamage, path: nil) else { return }
                let canvas = decoder.canvas
                var index = 0, pixels = 0, pastCanvas = 0
                while let frame = try decoder.next() {
                    precondition(frame.image.size == canvas, "a \(frame.image.size) frame on a \(canvas) canvas")
                    if index < frames.count {
                        let rect = frames[index]
                        if format == .gif {
                            precondition(rect.width * rect.height <= limit, "GIF frame \(index), \(rect), decoded past the limit of \(limit)")
                            pastCanvas += max(0, FrameRectangles.gifRowsDecoded(rect.rect, interlaced: rect.interlaced, canvas: canvas) * rect.width - canvas.pixelCount)
                            precondition(pastCanvas <= limit, "GIF frames to \(index) decoded \(pastCanvas) pixels past the \(canvas) canvas, over the limit of \(limit)")
                        } else {
                            precondition(rect.x + rect.width <= canvas.width && rect.y + rect.height <= canvas.height,
                                         "WebP frame \(index), \(rect), past the \(canvas) canvas decoded")
                        }
                    }
                    index += 1
                    pixels += canvas.pixelCount
                    if pixels > limit { break }
                }
            } catch is ImageError {
            } catch {
                preconditionFailure("decoding frames threw \(error), not an ImageError")
            }
        }
    }
}

/// The frames' rectangles of a GIF or animated WebP, read from the file's blocks and chunks
/// alone (not through giflib or libwebp), as far as they are whole.
enum FrameRectangles {
    struct Frame: CustomStringConvertible {
        let x: Int, y: Int, width: Int, height: Int
        let interlaced: Bool
        var rect: Rect { Rect(x: x, y: y, width: width, height: height) }
        var description: String { "\(width)x\(height) at \(x),\(y)\(interlaced ? " interlaced" : "")" }
    }

    /// A GIF's image descriptors in order, up to the first block that is cut or unknown.
    static func gif(_ b: [UInt8]) -> [Frame] {
        guard b.count >= 13 else { return [] }
        func table(_ packed: UInt8) -> Int { packed & 0x80 != 0 ? 3 << ((Int(packed) & 7) + 1) : 0 }
        func skipSubBlocks(_ index: inout Int) -> Bool {
            while index < b.count {
                let length = Int(b[index])
                index += 1 + length
                if length == 0 { return index <= b.count }
            }
            return false
        }
        var index = 13 + table(b[10]), frames: [Frame] = []
        while index < b.count {
            switch b[index] {
            case 0x21:
                index += 2
                guard skipSubBlocks(&index) else { return frames }
            case 0x2C:
                guard index + 10 <= b.count else { return frames }
                func word(_ at: Int) -> Int { Int(b[index + at]) | Int(b[index + at + 1]) << 8 }
                frames.append(Frame(x: word(1), y: word(3), width: word(5), height: word(7), interlaced: b[index + 9] & 0x40 != 0))
                index += 10 + table(b[index + 9]) + 1
                guard skipSubBlocks(&index) else { return frames }
            default:
                return frames
            }
        }
        return frames
    }

    /// The rows of a GIF frame giflib decodes (`GIFFrameDecoder.rowOrder`): in the order its
    /// data holds them, up to the last that reaches the canvas.
    static func gifRowsDecoded(_ frame: Rect, interlaced: Bool, canvas: Size) -> Int {
        guard frame.width > 0, frame.height > 0, frame.x < canvas.width, frame.y < canvas.height else { return 0 }
        let shown = min(frame.height, canvas.height - frame.y)
        let passes: [(start: Int, step: Int)] = interlaced ? [(0, 8), (4, 8), (2, 4), (1, 2)] : [(0, 1)]
        var order = 0, last = 0
        for (start, step) in passes {
            for row in stride(from: start, to: frame.height, by: step) {
                order += 1
                if row < shown { last = order }
            }
        }
        return last
    }

    /// An animated WebP's ANMF frames in order, within the RIFF size, up to the first cut chunk.
    static func webp(_ b: [UInt8]) -> [Frame] {
        guard b.count >= 12, b[0..<4].elementsEqual("RIFF".utf8), b[8..<12].elementsEqual("WEBP".utf8) else { return [] }
        func value(_ at: Int, _ count: Int) -> Int { (0..<count).reduce(0) { $0 | Int(b[at + $1]) << (8 * $1) } }
        let end = min(b.count, 8 + value(4, 4))
        var index = 12, frames: [Frame] = []
        while index + 8 <= end {
            let size = value(index + 4, 4)
            guard index + 8 + size <= end else { return frames }
            // A frame without an image chunk (VP8 or VP8L, after ALPH) is no frame to libwebp's demuxer.
            if b[index..<index + 4].elementsEqual("ANMF".utf8), size >= 16, holdsImage(b, from: index + 24, to: index + 8 + size) {
                let at = index + 8
                // libwebp's demuxer takes the frame's size from its image, not from the ANMF header.
                let image = imageSize(b, from: index + 24, to: index + 8 + size)
                frames.append(Frame(x: 2 * value(at, 3), y: 2 * value(at + 3, 3), width: image?.width ?? value(at + 6, 3) + 1,
                                    height: image?.height ?? value(at + 9, 3) + 1, interlaced: false))
            }
            index += 8 + size + (size & 1)
        }
        return frames
    }

    /// The size the image chunk (VP8L or a VP8 key frame) among the chunks from `start` to `end`
    /// gives; nil when there is none or it cannot be read.
    private static func imageSize(_ b: [UInt8], from start: Int, to end: Int) -> Size? {
        var index = start
        while index + 8 <= end {
            let size = (0..<4).reduce(0) { $0 | Int(b[index + 4 + $1]) << (8 * $1) }
            if b[index..<index + 4].elementsEqual("VP8L".utf8) {
                guard size >= 5, index + 13 <= b.count, b[index + 8] == 0x2F else { return nil }
                let bits = (0..<4).reduce(0) { $0 | Int(b[index + 9 + $1]) << (8 * $1) }
                return Size((bits & 0x3FFF) + 1, (bits >> 14 & 0x3FFF) + 1)
            }
            if b[index..<index + 4].elementsEqual("VP8 ".utf8) {
                // A key frame: a 3-byte tag, 9D 01 2A, then 14 bits each of width and height.
                guard size >= 10, index + 18 <= b.count, b[index + 11] == 0x9D, b[index + 12] == 0x01, b[index + 13] == 0x2A else { return nil }
                return Size((Int(b[index + 14]) | Int(b[index + 15]) << 8) & 0x3FFF, (Int(b[index + 16]) | Int(b[index + 17]) << 8) & 0x3FFF)
            }
            index += 8 + size + (size & 1)
        }
        return nil
    }

    /// Whether the chunks from `start` to `end` hold a VP8 or VP8L chunk.
    private static func holdsImage(_ b: [UInt8], from start: Int, to end: Int) -> Bool {
        var index = start
        while index + 8 <= end {
            if b[index..<index + 4].elementsEqual("VP8 ".utf8) || b[index..<index + 4].elementsEqual("VP8L".utf8) { return true }
            let size = (0..<4).reduce(0) { $0 | Int(b[index + 4 + $1]) << (8 * $1) }
            index += 8 + size + (size & 1)
        }
        return false
    }
}
