import CGifLib
#if canImport(Glibc)
import Glibc
#endif

/// An animated GIF's frames through giflib (strict LZW decoding), composed here as browsers
/// compose them: each frame drawn at its offset, clipped to the canvas, its transparent index
/// leaving the canvas as it was; then disposed of before the next frame as its graphic control
/// block says (kept, cleared to transparent, or put back as it was before). The canvas starts
/// transparent. Only the canvas and one row of indices are held.
///
/// A frame's own rectangle may be far larger than the canvas (65535x65535 on a 2x2 screen: 4.3
/// gigapixels of LZW from 2 MB of data), so the pixel limit is held for every frame, not only the
/// canvas the plan counted: a frame whose rectangle is past `--max-pixels` is refused before its
/// data is read, only the rows that reach the canvas are decoded (the rest of the data is passed
/// over, as browsers clip a frame to the canvas), and what frames decode beyond the canvas's own
/// size counts against the limit, all frames together. The deadline and the run's cancellation
/// are checked between records and between rows.
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
    /// The pixel limit and the deadline of the run.
    private let options: LoadOptions
    /// What frames reaching past the canvas decoded beyond the canvas's own pixel count, together.
    private var decodedPastCanvas = 0
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
    /// frames then sit on that. `options` gives the pixel limit and the deadline.
    init(input: Input, canvas wanted: Size? = nil, options: LoadOptions, failOnDamage: Bool, path: String?) throws {
        self.failOnDamage = failOnDamage
        self.path = path
        self.input = input
        self.options = options
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
        } catch let error as ImageError where !failOnDamage && frameIndex > 0 && error.kind == .corrupt {
            // fail=false: the frames before the damage are the animation. A limit still holds.
            return end()
        }
    }

    /// Throws past the deadline or once the run is told to stop.
    private func checkStop() throws {
        try options.checkDeadline(path: path)
        try StageContext.checkCancelled()
    }

    private func nextFrame() throws -> AnimationFrame? {
        guard !finished else { return nil }
        var control = GraphicsControlBlock(DisposalMode: 0, UserInputFlag: false, DelayTime: 0, TransparentColor: -1)
        while true {
            try checkStop()
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
        // A frame with no color table at all, neither its own nor the file's global one, has
        // every index past the table: opaque black, as Chromium shows it (Pillow reads the
        // indices as gray levels; GIF leaves the choice to the reader).
        let colors = (description.ColorMap ?? gif.pointee.SColorMap).map { UnsafeBufferPointer(start: $0.pointee.Colors, count: Int($0.pointee.ColorCount)) }
            ?? UnsafeBufferPointer(start: nil, count: 0)
        let visible = frame.intersection(Rect(x: 0, y: 0, width: canvas.width, height: canvas.height))
        // Offsets are never negative: the rows that show are the frame's first `visible.height`.
        let rows = Self.rowOrder(height: frame.height, interlaced: description.Interlace, through: visible?.height ?? 0)
        try checkPixels(frame, decodedRows: rows.count)
        disposePrevious()
        if let visible, control.DisposalMode == DISPOSE_PREVIOUS {
            disposal = (DISPOSE_PREVIOUS, visible, save(visible))
        } else if let visible, control.DisposalMode == DISPOSE_BACKGROUND {
            disposal = (DISPOSE_BACKGROUND, visible, [])
        }
        if let visible {
            try draw(frame, visible: visible, rows: rows, colors: colors, transparent: Int(control.TransparentColor))
        } else {
            // Nothing of it shows: its data is passed over undecoded, as browsers pass it.
            try passOverData()
        }
        frameIndex += 1
        let image = try pixels.withUnsafeBufferPointer { try AnimationDecoding.image(ofRGBA: $0, size: canvas) }
        return AnimationFrame(image: image, delay: Int(control.DelayTime) * 10)
    }

    /// The frame's rows in the order its data holds them (the four passes of an interlaced
    /// frame), up to the last of its first `shown` rows: those that reach the canvas. Decoding
    /// stops there; the rest of the data is passed over.
    static func rowOrder(height: Int, interlaced: Bool, through shown: Int) -> [Int] {
        guard shown > 0 else { return [] }
        let passes: [(start: Int, step: Int)] = interlaced ? [(0, 8), (4, 8), (2, 4), (1, 2)] : [(0, 1)]
        var order: [Int] = [], left = min(shown, height)
        for (start, step) in passes {
            for row in stride(from: start, to: height, by: step) {
                order.append(row)
                if row < shown { left -= 1 }
                if left == 0 { return order }
            }
        }
        return order
    }

    /// Refuses a frame past the pixel limit before its data is read: its rectangle alone, or
    /// what it would decode beyond the canvas's size (`decodedRows` rows of its width) together
    /// with the frames before it. The plan counted the canvas, once for each frame.
    private func checkPixels(_ frame: Rect, decodedRows: Int) throws {
        guard let limit = options.maxPixels, limit > 0 else { return }
        let pixels = frame.width * frame.height
        guard pixels <= limit else {
            throw ImageError(.tooLarge, path: path, reason: "GIF frame \(frameIndex) is \(frame.width)x\(frame.height) (\(pixels) pixels) on a \(canvas) canvas, more than the limit of \(limit)",
                             remedy: .raisePixelLimit)
        }
        let past = decodedRows * frame.width - canvas.pixelCount
        guard past > 0 else { return }
        decodedPastCanvas += past
        guard decodedPastCanvas <= limit else {
            throw ImageError(.tooLarge, path: path, reason: "GIF frame \(frameIndex) (\(frame.width)x\(frame.height)) reaches past the \(canvas) canvas: with the frames before it, "
                             + "\(decodedPastCanvas) pixels to decode beyond the canvas's own, more than the limit of \(limit)", remedy: .raisePixelLimit)
        }
    }

    /// Reads the frame's `rows` (`rowOrder`) and draws the part of each within `visible` onto
    /// the canvas as it comes; then passes over the data of the rows that do not show.
    private func draw(_ frame: Rect, visible: Rect, rows: [Int], colors: UnsafeBufferPointer<GifColorType>, transparent: Int) throws {
        var line = [GifPixelType](repeating: 0, count: frame.width)
        // The clock is read once about every 64 K pixels: a row of a wide frame is that much LZW.
        var sinceCheck = 0
        for row in rows {
            sinceCheck += frame.width
            if sinceCheck >= 1 << 16 {
                try checkStop()
                sinceCheck = 0
            }
            guard DGifGetLine(gif, &line, Int32(frame.width)) == GIF_OK else {
                if gif.pointee.Error == D_GIF_ERR_EOF_TOO_SOON {
                    // The data's end code came before the frame was full: a short frame,
                    // which GIF allows. Browsers leave the rest as the canvas held it; the
                    // row the code ended in is left so too, and the frame's last data
                    // blocks are passed over.
                    try passOverData(damage: "is cut short")
                    return
                }
                guard failOnDamage else {
                    // fail=false: the rows that came, over what the canvas held.
                    finished = true
                    return
                }
                throw damage("is damaged or cut short")
            }
            guard row < visible.height else { continue }
            let y = frame.y + row
            for column in 0..<visible.width {
                let x = frame.x + column, index = Int(line[column])
                guard index != transparent else { continue }
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
        // giflib passes over the data itself once every row was read.
        if rows.count < frame.height { try passOverData() }
    }

    /// Steps over the rest of a frame's data sub-blocks, reading them without decoding: what a
    /// frame has past the canvas, or after its end code.
    private func passOverData(damage what: String = "is damaged or cut short") throws {
        var block: UnsafeMutablePointer<GifByteType>?
        repeat {
            try checkStop()
            guard DGifGetCodeNext(gif, &block) == GIF_OK else {
                guard failOnDamage else {
                    // fail=false: the frames so far, this one included, are the animation.
                    finished = true
                    return
                }
                throw damage(what)
            }
        } while block != nil
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
