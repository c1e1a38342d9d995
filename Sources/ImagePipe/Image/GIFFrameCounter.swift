/// Counts a GIF's frames as its bytes stream past, holding none of them: the header read of an
/// animation learns how many frames it has (for `--max-frames` and the pixel limit) without
/// keeping the file in memory. Blocks are walked as `FirstFrame` walks them: each image
/// descriptor is a frame, and bytes that start no block are passed over, as gdk-pixbuf's loader
/// passes over them.
struct GIFFrameCounter {
    private enum State {
        case screen, block, extensionLabel, descriptor, codeSize, subBlockLength, done
    }

    private var state = State.screen
    /// Bytes still to pass over before the next field (a color table, a sub-block's data).
    private var skipping = 0
    /// The field being gathered (the screen or an image descriptor) and how long it is.
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
            case .screen:
                field.append(byte)
                if field.count == 13 {
                    skipping = Self.colorTableLength(field[10])
                    field = []
                    state = .block
                }
            case .block:
                switch byte {
                case 0x21: state = .extensionLabel
                case 0x2C: state = .descriptor; frames += 1
                case 0x3B: state = .done
                default: break
                }
            case .extensionLabel:
                inFrame = false
                state = .subBlockLength
            case .descriptor:
                field.append(byte)
                if field.count == 9 {
                    skipping = Self.colorTableLength(field[8])
                    field = []
                    state = .codeSize
                }
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
