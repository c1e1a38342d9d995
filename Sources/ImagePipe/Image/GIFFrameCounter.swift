/// Counts a GIF's frames as its bytes stream past, holding none of them: the header read of an
/// animation learns how many frames it has (for `--max-frames` and the pixel limit) without
/// keeping the file in memory. Blocks are walked as `FirstFrame` walks them: each image
/// descriptor is a frame, and bytes that start no block are passed over, as gdk-pixbuf's loader
/// passes over them.
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
    private var inFrame = false
    private var offset = 0
    /// Image descriptors seen.
    private(set) var frames = 0
    /// Where the first frame's data ends (after its block terminator), once known.
    private(set) var firstFrameEnd: Int?

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
                inFrame = false
                state = .subBlockLength
            case .codeSize:
                inFrame = true
                state = .subBlockLength
            case .subBlockLength:
                if byte == 0 {
                    if inFrame && frames == 1 && firstFrameEnd == nil { firstFrameEnd = offset + index }
                    state = .block
                } else {
                    skipping = Int(byte)
                }
            case .done:
                break
            }
        }
        offset += chunk.count
    }
}
