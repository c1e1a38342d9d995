/// Reads a GIF's header as its bytes stream past, holding none of its frames: the logical
/// screen, where the first frame lies, and how many frames there are (for `--max-frames` and
/// the pixel limit), without keeping the file in memory. Each image descriptor is a frame, and
/// bytes that start no block are passed over, as giflib and browsers pass over them.
struct GIFFrameCounter {
    private indirect enum State: Equatable {
        /// A fixed header of `length` bytes whose byte `packedAt` says whether a color table
        /// follows: the logical screen (13, at 10) or an image descriptor after its 0x2C (9, at 8).
        case header(length: Int, packedAt: Int, then: State)
        case block, extensionLabel, codeSize, subBlockLength, done
    }

    private var state = State.header(length: 13, packedAt: 10, then: .block)
    /// Bytes still to pass over before the next field (a color table, a sub-block's data).
    private var skipping = 0
    /// The header being gathered.
    private var field: [UInt8] = []
    /// Image descriptors seen.
    private(set) var frames = 0
    /// The logical screen's size.
    private(set) var screen: Size?
    /// Where the first frame lies on the screen.
    private(set) var firstFrame: Rect?

    private static func colorTableLength(_ packed: UInt8) -> Int { packed & 0x80 != 0 ? 3 << (Int(packed & 7) + 1) : 0 }

    mutating func feed(_ chunk: UnsafeRawBufferPointer) {
        var index = 0
        while index < chunk.count, state != .done {
            if skipping > 0 {
                let passed = min(skipping, chunk.count - index)
                skipping -= passed
                index += passed
                continue
            }
            let byte = chunk[index]
            index += 1
            switch state {
            case let .header(length, packedAt, then):
                field.append(byte)
                if field.count == length {
                    func little(_ at: Int) -> Int { Int(field[at]) | Int(field[at + 1]) << 8 }
                    if length == 13 { screen = Size(little(6), little(8)) }
                    if length == 9, frames == 1 { firstFrame = Rect(x: little(0), y: little(2), width: little(4), height: little(6)) }
                    skipping = Self.colorTableLength(field[packedAt])
                    field = []
                    state = then
                }
            case .block:
                switch byte {
                case 0x21: state = .extensionLabel
                case 0x2C: state = .header(length: 9, packedAt: 8, then: .codeSize); frames += 1
                case 0x3B: state = .done
                default: break
                }
            case .extensionLabel:
                state = .subBlockLength
            case .codeSize:
                state = .subBlockLength
            case .subBlockLength:
                if byte == 0 {
                    state = .block
                } else {
                    skipping = Int(byte)
                }
            case .done:
                break
            }
        }
    }

    /// The header of the GIF seen: its canvas is the screen, widened to hold a first frame that
    /// reaches past it (browsers and Pillow show such a frame whole), so the frames all sit on
    /// the size the plan is made for.
    func header(path: String?) throws(ImageError) -> ImageHeader {
        guard let screen, let frame = firstFrame else {
            throw ImageError(.corrupt, path: path, reason: screen == nil ? "the GIF's header is cut short" : "the GIF holds no frame")
        }
        // A frame without pixels: nothing to show, and nothing a stage could work on.
        guard frame.width > 0, frame.height > 0 else {
            throw ImageError(.corrupt, path: path, reason: "the GIF's first frame is empty (\(frame.width)x\(frame.height) pixels)")
        }
        let canvas = Size(max(screen.width, frame.x + frame.width), max(screen.height, frame.y + frame.height))
        return ImageHeader(storedSize: canvas, format: .gif, frameCount: frames)
    }

    /// The header of a GIF held in memory.
    static func header(of bytes: [UInt8], path: String?) throws(ImageError) -> ImageHeader {
        var counter = GIFFrameCounter()
        bytes.withUnsafeBytes { counter.feed($0) }
        return try counter.header(path: path)
    }
}

extension GIFFrameCounter: HeaderReader {
    mutating func take(_ chunk: UnsafeRawBufferPointer) throws -> Bool {
        feed(chunk)
        return true
    }

    func finished(path: String) throws -> ImageHeader { try header(path: path) }
}
