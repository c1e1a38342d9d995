extension FirstFrame {
    /// A GIF's first frame, as a GIF of its own; one whose first frame has no pixels is refused.
    init(gif bytes: [UInt8], path: String?) throws(ImageError) {
        self.init(still: bytes)
        cutGIF()
        if let frame = gifFrame, frame.width == 0 || frame.height == 0 {
            throw ImageError(.corrupt, path: path, reason: "the GIF's first frame is empty (\(frame.width)x\(frame.height) pixels)")
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
}
