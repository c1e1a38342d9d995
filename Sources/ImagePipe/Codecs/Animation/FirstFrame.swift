/// The first frame of an animated GIF or WebP, as a file of its own, and how many frames there
/// were.
///
/// gdk-pixbuf's loaders decode every frame of an animation as it arrives, each as large as the
/// canvas: 544 bytes of WebP holding ten 16x16 frames on an 8000x8000 canvas made 2.7 GB and a
/// crash, even for a header read. ImagePipe works on still pictures, so it cuts the data after
/// the first frame before any loader sees it; the frame limit is then the pixel limit. A GIF
/// whose first frame has no pixels is refused here (the loader would assert, then say "Not
/// enough memory"), and where the first frame's data begins is kept for `GIFDataCheck`.
struct FirstFrame {
    /// The data to decode: the first frame alone, or the input as it was.
    var bytes: [UInt8]
    /// How many frames the input holds (1 for a still picture).
    var frameCount: Int
    /// A GIF's first frame: its size, where its LZW data begins (the code size byte) and where
    /// its descriptor is, in `bytes`; nil for other formats, or when no whole descriptor is found.
    var gifFrame: (width: Int, height: Int, data: Int, descriptor: Int)?
    /// An animated WebP's canvas and where its first frame sits on it, when the frame does not
    /// cover it all: the frame decodes alone and is then placed on a transparent canvas, as
    /// viewers, libvips and Pillow show it.
    var webpPlacement: (canvas: Size, x: Int, y: Int)?
    /// Why a GIF is cut short after its first frame (the file ends inside a later block), and
    /// the `fail=` level that refuses it; nil when it is not. The first frame decodes whole all
    /// the same, so its decoder cannot tell: a still run refuses a GIF whose file ends inside a
    /// later frame from `truncated`, as it refuses a cut AVIF sequence, and one that ends inside
    /// an extension block (a comment, XMP, the next frame's control block) from `warning`, as a
    /// WebP cut in its metadata.
    var gifCut: (level: FailOn, reason: String)?

    init(of bytes: [UInt8], format: SourceFormat, path: String?) throws(ImageError) {
        self.bytes = bytes
        frameCount = 1
        switch format {
        case .gif:
            cutGIF()
            if let frame = gifFrame, frame.width == 0 || frame.height == 0 {
                throw ImageError(.corrupt, path: path, reason: "the GIF's first frame is empty (\(frame.width)x\(frame.height) pixels)")
            }
        case .webp: try cutWebP(path: path)
        default: break
        }
    }

    /// GIF: blocks after the header and global colour table; each image descriptor (0x2C) is a
    /// frame. Keeps everything up to the end of the first frame's data, then a trailer.
    private mutating func cutGIF() {
        let b = bytes
        guard b.count >= 13 else { return }
        func colourTableLength(_ packed: UInt8) -> Int { packed & 0x80 != 0 ? 3 << ((Int(packed) & 7) + 1) : 0 }
        /// Skips data sub-blocks (a length byte, that many bytes; a 0 ends them). False if cut.
        func skipSubBlocks(_ index: inout Int) -> Bool {
            while index < b.count {
                let length = Int(b[index])
                index += 1 + length
                if length == 0 { return true }
            }
            return false
        }
        var index = 13 + colourTableLength(b[10])
        var frames = 0
        var firstEnd: Int?
        /// Where the file ends inside a block after the first frame's data.
        func cut(_ block: String, whole: Int, level: FailOn = .truncated) {
            guard firstEnd != nil else { return }
            gifCut = (level, "the GIF is cut short: the file ends within \(block), after \(whole) whole frame\(whole == 1 ? "" : "s")")
        }
        scan: while let start = Self.nextGIFBlock(in: b, from: index) {
            index = start
            if b[index] == 0x21 { // extension: introducer, label, sub-blocks
                index += 2
                guard skipSubBlocks(&index) else { cut("an extension block", whole: frames, level: .warning); break scan }
            } else { // image descriptor, local colour table, LZW code size, sub-blocks
                frames += 1
                guard index + 10 <= b.count else { cut("the image descriptor of frame \(frames - 1)", whole: frames - 1); break scan }
                if frames == 1, index + 11 <= b.count {
                    gifFrame = (Int(b[index + 5]) | Int(b[index + 6]) << 8, Int(b[index + 7]) | Int(b[index + 8]) << 8,
                                index + 10 + colourTableLength(b[index + 9]), index)
                }
                index += 10 + colourTableLength(b[index + 9]) + 1
                guard skipSubBlocks(&index) else { cut("the data of frame \(frames - 1)", whole: frames - 1); break scan }
                if frames == 1 { firstEnd = index }
            }
        }
        frameCount = max(1, frames)
        if frames > 1, let firstEnd, firstEnd <= b.count { bytes = Array(b[..<firstEnd]) + [0x3B] }
        coverFirstFrame()
    }

    /// Widens the logical screen to hold the first frame when the frame reaches past it: the
    /// loader composites the frame onto a screen-sized picture and asserts when it does not fit
    /// (found by the decode fuzzer under G_DEBUG=fatal-criticals: a 10x512 frame 20 rows down a
    /// 20x10 screen). Browsers and Pillow show such a frame whole too.
    private mutating func coverFirstFrame() {
        guard let frame = gifFrame, bytes.count >= 13, frame.descriptor + 10 <= bytes.count else { return }
        func little(_ offset: Int) -> Int { Int(bytes[offset]) | Int(bytes[offset + 1]) << 8 }
        let left = little(frame.descriptor + 1), top = little(frame.descriptor + 3)
        let width = max(little(6), left + frame.width), height = max(little(8), top + frame.height)
        guard width <= 0xFFFF, height <= 0xFFFF else { return } // past what a GIF can say: the loader refuses it
        bytes[6] = UInt8(width & 0xFF)
        bytes[7] = UInt8(width >> 8)
        bytes[8] = UInt8(height & 0xFF)
        bytes[9] = UInt8(height >> 8)
    }

    /// Where the next GIF block (an extension, 0x21, or an image descriptor, 0x2C) at or after
    /// `index` starts, as gdk-pixbuf's loader finds it: it passes over bytes that start no block,
    /// so a frame after such bytes is still a frame. nil at the trailer (0x3B) or the end.
    static func nextGIFBlock(in b: [UInt8], from index: Int) -> Int? {
        var index = index
        while index < b.count {
            switch b[index] {
            case 0x21, 0x2C: return index
            case 0x3B: return nil
            default: index += 1
            }
        }
        return nil
    }

    /// WebP: RIFF chunks; each `ANMF` is a frame whose data (optional `ALPH`, then `VP8 ` or
    /// `VP8L`) is wrapped as a still WebP of the frame's size.
    private mutating func cutWebP(path: String?) throws(ImageError) {
        let b = bytes
        guard b.count >= 12 else { return }
        // An animation whose first frame cannot be cut out would go to the loader's animation
        // decoder whole, which fails noisily or decodes every frame: refuse it here.
        let announcesAnimation = b.count > 20 && b[12..<16].elementsEqual("VP8X".utf8) && b[20] & 0x02 != 0
        func little(_ offset: Int, _ count: Int) -> Int { (0..<count).reduce(0) { $0 | Int(b[offset + $1]) << (8 * $1) } }
        func isType(_ offset: Int, _ type: String) -> Bool { b[offset..<(offset + 4)].elementsEqual(type.utf8) }
        var index = 12
        var frames = 0
        var first: (data: ArraySlice<UInt8>, width: Int, height: Int, x: Int, y: Int)?
        while index + 8 <= b.count {
            let size = little(index + 4, 4)
            let start = index + 8
            if isType(index, "ANMF") {
                frames += 1
                if frames == 1, size >= 16, start + size <= b.count {
                    // ANMF: x/2 and y/2 (3 bytes each), width-1 and height-1 (3 bytes each), duration, flags.
                    first = (b[(start + 16)..<(start + size)], little(start + 6, 3) + 1, little(start + 9, 3) + 1,
                             2 * little(start, 3), 2 * little(start + 3, 3))
                }
            }
            index = start + size + (size & 1)
        }
        guard frames > 0 || announcesAnimation else { return }
        frameCount = max(1, frames)
        guard let first else { throw ImageError(.corrupt, path: path, reason: "an animated WebP whose first frame is missing or cut short") }
        // A frame holds an image chunk (alpha first, or not); anything else (a nested VP8X that
        // says "animation", found by the decode fuzzer) would send the loader down its animation
        // path, where it asserts.
        guard ["ALPH", "VP8 ", "VP8L"].contains(where: { first.data.prefix(4).elementsEqual($0.utf8) }) else {
            throw ImageError(.corrupt, path: path, reason: "an animated WebP whose first frame holds no image data")
        }
        func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
            Array(type.utf8) + (0..<4).map { UInt8(truncatingIfNeeded: data.count >> (8 * $0)) } + data + (data.count & 1 == 1 ? [0] : [])
        }
        func triple(_ value: Int) -> [UInt8] { (0..<3).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
        var body = Array(first.data)
        if first.data.count >= 4, first.data.prefix(4).elementsEqual("ALPH".utf8) {
            // Alpha in its own chunk needs the extended header that announces it.
            body = chunk("VP8X", [0x10, 0, 0, 0] + triple(first.width - 1) + triple(first.height - 1)) + body
        }
        let cut = Array("RIFF".utf8) + (0..<4).map { UInt8(truncatingIfNeeded: (body.count + 4) >> (8 * $0)) } + Array("WEBP".utf8) + body
        // The frame is as large as its image, whatever its ANMF header says, as libwebp's demuxer
        // takes it: a 4x8196 image in a frame said to be 4x4, on a 4x4 canvas, found by the
        // decode fuzzer, decoded alone as 4x8196 where the header read said 4x4.
        let frame = try WebPChunks(.bytes(cut), path: path).size ?? Size(first.width, first.height)
        if announcesAnimation, b.count >= 30 {
            // VP8X: flags (4 bytes), canvas width-1 and height-1 (3 bytes each).
            let canvas = Size(little(24, 3) + 1, little(27, 3) + 1)
            if canvas != frame || first.x != 0 || first.y != 0 {
                webpPlacement = (canvas, first.x, first.y)
            }
        }
        bytes = cut
    }
}
