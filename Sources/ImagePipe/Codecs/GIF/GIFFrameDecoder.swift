import CGifLib
#if canImport(Glibc)
import Glibc
#endif

/// An animated GIF's frames through giflib (strict LZW decoding), composed here as browsers
/// compose them: each frame drawn at its offset, clipped to the canvas, its transparent index
/// leaving the canvas as it was; then disposed of before the next frame as its graphic control
/// block says (kept, cleared to transparent, or put back as it was before). The canvas starts
/// transparent. Only the canvas and one row of indices are held.
final class GIFFrameDecoder: AnimationDecoder {
    /// What giflib reads: bytes in memory, or a file read as giflib asks, so that the file's
    /// frames are never all in memory.
    final class Input {
        private let bytes: [UInt8]
        private let descriptor: Int32?
        private var offset = 0
        private(set) var atEnd = false

        init(bytes: [UInt8]) {
            self.bytes = bytes
            descriptor = nil
        }

        /// The regular file at `path`, refused past `limit` bytes.
        init(path: String, limit: Int?) throws {
            try ImageFile.checkSize(path: path, limit: limit)
            let descriptor = open(path, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else { throw ImageFile.readError(path: path) }
            self.descriptor = descriptor
            bytes = []
        }

        deinit { if let descriptor { close(descriptor) } }

        func read(into buffer: UnsafeMutablePointer<UInt8>, count: Int) -> Int {
            guard let descriptor else {
                let taken = min(count, bytes.count - offset)
                bytes.withUnsafeBufferPointer { buffer.update(from: $0.baseAddress! + offset, count: taken) }
                offset += taken
                atEnd = offset >= bytes.count
                return taken
            }
            var total = 0
            while total < count {
                let got = Glibc.read(descriptor, buffer + total, count - total)
                if got < 0 && errno == EINTR { continue }
                guard got > 0 else { atEnd = true; break }
                total += got
            }
            return total
        }
    }

    private let input: Input
    private let gif: UnsafeMutablePointer<GifFileType>
    private let failOnDamage: Bool
    private let path: String?
    let canvas: Size
    private(set) var plays: Int?
    /// RGBA, row after row.
    private var pixels: [UInt8]
    /// What the previous frame asked to be done with its rectangle before the next is drawn.
    private var disposal: (mode: Int32, rect: Rect, saved: [UInt8])?
    private var frameIndex = 0
    private var finished = false

    /// `canvas`, when given and no smaller than the GIF's screen, is the canvas instead: the
    /// header read widens a screen that the first frame reaches past (`FirstFrame`), and the
    /// frames then sit on that.
    init(input: Input, canvas wanted: Size? = nil, failOnDamage: Bool, path: String?) throws {
        self.failOnDamage = failOnDamage
        self.path = path
        self.input = input
        var error: Int32 = 0
        let read: InputFunc = { gif, buffer, count in
            guard let gif, let buffer, count > 0 else { return 0 }
            let input = Unmanaged<Input>.fromOpaque(gif.pointee.UserData).takeUnretainedValue()
            return Int32(input.read(into: buffer, count: Int(count)))
        }
        guard let gif = DGifOpen(Unmanaged.passUnretained(input).toOpaque(), read, &error) else {
            throw ImageError(.corrupt, path: path, reason: "giflib cannot read the GIF: \(Self.message(error))")
        }
        self.gif = gif
        let screen = Size(Int(gif.pointee.SWidth), Int(gif.pointee.SHeight))
        if let wanted, wanted.width >= screen.width, wanted.height >= screen.height { canvas = wanted } else { canvas = screen }
        guard canvas.width > 0, canvas.height > 0 else {
            DGifCloseFile(gif, &error)
            throw ImageError(.corrupt, path: path, reason: "the GIF's canvas is \(canvas)")
        }
        pixels = [UInt8](repeating: 0, count: canvas.pixelCount * 4)
    }

    deinit {
        var error: Int32 = 0
        DGifCloseFile(gif, &error)
    }

    private static func message(_ code: Int32) -> String {
        GifErrorString(code).map { String(cString: $0).lowercased() } ?? "error \(code)"
    }

    /// The failure giflib reported, as an error naming the frame.
    private func damage(_ what: String) -> ImageError {
        ImageError(.corrupt, path: path, reason: "GIF frame \(frameIndex) \(what): \(Self.message(gif.pointee.Error))")
    }

    func next() throws -> AnimationFrame? {
        do {
            return try nextFrame()
        } catch is ImageError where !failOnDamage && frameIndex > 0 {
            // fail=false: the frames before the damage are the animation.
            return end()
        }
    }

    private func nextFrame() throws -> AnimationFrame? {
        guard !finished else { return nil }
        var control = GraphicsControlBlock(DisposalMode: 0, UserInputFlag: false, DelayTime: 0, TransparentColor: -1)
        while true {
            var record = UNDEFINED_RECORD_TYPE
            guard DGifGetRecordType(gif, &record) == GIF_OK else {
                // Many GIFs end without their trailer byte: the data simply stops after a frame.
                if input.atEnd && frameIndex > 0 { return end() }
                throw damage("cannot be found")
            }
            switch record {
            case EXTENSION_RECORD_TYPE:
                try readExtension(into: &control)
            case IMAGE_DESC_RECORD_TYPE:
                return try readFrame(control: control)
            case TERMINATE_RECORD_TYPE:
                return end()
            default:
                throw damage("is preceded by an unknown block")
            }
        }
    }

    private func end() -> AnimationFrame? {
        finished = true
        return nil
    }

    private func readExtension(into control: inout GraphicsControlBlock) throws {
        var code: Int32 = 0
        var block: UnsafeMutablePointer<GifByteType>?
        guard DGifGetExtension(gif, &code, &block) == GIF_OK else { throw damage("has a damaged extension block") }
        var isLoop = false
        if let block, code == GRAPHICS_EXT_FUNC_CODE, block[0] >= 4 {
            _ = DGifExtensionToGCB(Int(block[0]), block + 1, &control)
        } else if let block, code == APPLICATION_EXT_FUNC_CODE, block[0] == 11 {
            isLoop = Array(UnsafeBufferPointer(start: block + 1, count: 11)) == Array("NETSCAPE2.0".utf8)
        }
        while block != nil {
            guard DGifGetExtensionNext(gif, &block) == GIF_OK else { throw damage("has a damaged extension block") }
            if isLoop, let data = block, data[0] >= 3, data[1] == 1 {
                // NETSCAPE2.0 counts the repeats after the first showing.
                let repeats = Int(data[2]) | Int(data[3]) << 8
                plays = repeats == 0 ? 0 : repeats + 1
                isLoop = false
            }
        }
    }

    private func readFrame(control: GraphicsControlBlock) throws -> AnimationFrame {
        guard DGifGetImageDesc(gif) == GIF_OK else { throw damage("has a damaged image descriptor") }
        let description = gif.pointee.Image
        let frame = Rect(x: Int(description.Left), y: Int(description.Top), width: Int(description.Width), height: Int(description.Height))
        guard let colorMap = description.ColorMap ?? gif.pointee.SColorMap else {
            throw ImageError(.corrupt, path: path, reason: "GIF frame \(frameIndex) has no color table")
        }
        let colors = UnsafeBufferPointer(start: colorMap.pointee.Colors, count: Int(colorMap.pointee.ColorCount))
        disposePrevious()
        let visible = frame.intersection(Rect(x: 0, y: 0, width: canvas.width, height: canvas.height))
        if let visible, control.DisposalMode == DISPOSE_PREVIOUS {
            disposal = (DISPOSE_PREVIOUS, visible, save(visible))
        } else if let visible, control.DisposalMode == DISPOSE_BACKGROUND {
            disposal = (DISPOSE_BACKGROUND, visible, [])
        }
        if frame.width > 0 && frame.height > 0 {
            try draw(frame, colors: colors, transparent: Int(control.TransparentColor), interlaced: description.Interlace)
        }
        frameIndex += 1
        let image = try pixels.withUnsafeBufferPointer { try AnimationDecoding.image(ofRGBA: $0, size: canvas) }
        return AnimationFrame(image: image, delay: Int(control.DelayTime) * 10)
    }

    /// Reads the frame's rows (in the four passes of an interlaced frame) and draws each onto
    /// the canvas as it comes.
    private func draw(_ frame: Rect, colors: UnsafeBufferPointer<GifColorType>, transparent: Int, interlaced: Bool) throws {
        var line = [GifPixelType](repeating: 0, count: frame.width)
        let order: [(start: Int, step: Int)] = interlaced ? [(0, 8), (4, 8), (2, 4), (1, 2)] : [(0, 1)]
        for (start, step) in order {
            for row in stride(from: start, to: frame.height, by: step) {
                guard DGifGetLine(gif, &line, Int32(frame.width)) == GIF_OK else {
                    if gif.pointee.Error == D_GIF_ERR_EOF_TOO_SOON {
                        // The data's end code came before the frame was full: a short frame,
                        // which GIF allows. Browsers leave the rest as the canvas held it; the
                        // row the code ended in is left so too, and the frame's last data
                        // blocks are passed over.
                        var block: UnsafeMutablePointer<GifByteType>?
                        repeat {
                            guard DGifGetCodeNext(gif, &block) == GIF_OK else { throw damage("is cut short") }
                        } while block != nil
                        return
                    }
                    guard failOnDamage else {
                        // fail=false: the rows that came, over what the canvas held.
                        finished = true
                        return
                    }
                    throw damage("is damaged or cut short")
                }
                let y = frame.y + row
                guard y < canvas.height else { continue }
                for column in 0..<frame.width {
                    let x = frame.x + column, index = Int(line[column])
                    guard x < canvas.width, index != transparent else { continue }
                    let at = (y * canvas.width + x) * 4
                    if index < colors.count {
                        pixels[at] = colors[index].Red
                        pixels[at + 1] = colors[index].Green
                        pixels[at + 2] = colors[index].Blue
                    } else {
                        // An index past the table: black, as browsers draw it.
                        pixels[at] = 0; pixels[at + 1] = 0; pixels[at + 2] = 0
                    }
                    pixels[at + 3] = 255
                }
            }
        }
    }

    /// The canvas's pixels under `rect`, for disposal to the previous picture.
    private func save(_ rect: Rect) -> [UInt8] {
        var saved: [UInt8] = []
        saved.reserveCapacity(rect.width * rect.height * 4)
        for y in rect.y..<rect.y + rect.height {
            let start = (y * canvas.width + rect.x) * 4
            saved += pixels[start..<start + rect.width * 4]
        }
        return saved
    }

    private func disposePrevious() {
        guard let (mode, rect, saved) = disposal else { return }
        disposal = nil
        for (row, y) in (rect.y..<rect.y + rect.height).enumerated() {
            let start = (y * canvas.width + rect.x) * 4, count = rect.width * 4
            if mode == DISPOSE_PREVIOUS {
                pixels.replaceSubrange(start..<start + count, with: saved[row * count..<(row + 1) * count])
            } else {
                for i in start..<start + count { pixels[i] = 0 }
            }
        }
    }
}
