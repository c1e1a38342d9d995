import CGIF

/// Animated GIF writing with cgif (the encoder libvips uses) and libimagequant palettes.
///
/// The first frame's palette is the file's global table; later frames are mapped to the palette
/// in use while it still suits them, else they get a palette of their own, written as a local
/// table. Frames that share colors let cgif write only the rectangle that changed and mark
/// unchanged pixels transparent, which is where most of an animated GIF's size goes. Palettes
/// therefore hold at most 255 colors, leaving cgif an index for that. A frame with pixels less
/// than half opaque has them as its transparent index, and cgif clears the frame before it.
final class GIFAnimationEncoder: AnimationEncoder {
    /// A palette is kept for a frame while the frame's mapping error is at most this factor of
    /// the palette's error on its own frame, plus the margin (mean square error per channel).
    /// Measured with Benchmarks/animation.py (100 frames of a panning photo to 240 px): 1.5 and 4
    /// gave 38.5 dB at 1.03× libvips' bytes; 1.1 and 1 give 40.1 dB at 1.01× (a new palette more
    /// often fits better and dithers less, so it costs no bytes), in 0.8× libvips' time; 1 and 0
    /// (a palette a frame) 40.5 dB, but 1.2× its time.
    static let paletteReuseFactor = 1.1
    static let paletteReuseMargin = 1.0

    private let colors: Int
    private let dither: Double
    private let plays: Int?
    /// Whether the delays are the run's own (`save delay=`) rather than the input's.
    private let delayAsked: Bool
    private let output = CGIFOutput()
    private var gif: OpaquePointer?
    private var size: Size?
    private var global: Quantization?
    private var current: Quantization?
    private var frameCount = 0

    init(colors: Int, dither: Double, plays: Int?, delayAsked: Bool) {
        self.colors = min(max(colors, 2), 255)
        self.dither = dither
        self.plays = plays
        self.delayAsked = delayAsked
    }

    /// The shortest delay browsers honour, in hundredths of a second: Chrome, Firefox and Safari
    /// show a GIF frame of 0 or 1 (10 ms) for 100 ms.
    static let shortestShownDelay = 2

    /// A delay of `milliseconds` in GIF's hundredths of a second, to the nearest (65 is 7). A
    /// delay the run asked for (`save delay=`) of 1 to 19 ms is written as 2, the shortest that
    /// browsers show as written: 1 to 4 would round to 0 and show for 100 ms, far slower than
    /// asked. A delay kept from the input is rounded alone, so that a 0 or 10 ms frame, shown
    /// for 100 ms, stays so.
    static func centiseconds(_ milliseconds: Int, asked: Bool) -> UInt16 {
        let rounded = min(max((milliseconds + 5) / 10, 0), 65_535)
        return UInt16(asked && milliseconds > 0 ? max(rounded, shortestShownDelay) : rounded)
    }

    deinit {
        // An animation given up halfway: cgif frees what it holds.
        if let gif { _ = cgif_close(gif) }
    }

    /// A palette as cgif takes it: RGB triples. cgif pads the table to GIF's power of two, and
    /// takes the entry past the last for its transparent index.
    private static func table(_ palette: [Color]) -> [UInt8] {
        palette.flatMap { [$0.red, $0.green, $0.blue] }
    }

    func add(_ image: Image, delay: Int) throws {
        guard image.width <= 65_535, image.height <= 65_535 else {
            throw ImageError(.unwritable, reason: "GIF holds at most 65535x65535 pixels; this picture is \(image.size)")
        }
        var indices: [UInt8]
        let palette: Quantization
        if let current, let size {
            guard image.size == size else {
                throw ImageError(.unwritable, reason: "frame \(frameCount) is \(image.size) where the first frame was \(size); every frame of a GIF has the canvas's size")
            }
            let (mapped, error) = try current.indices(of: image)
            if error <= current.sourceError * Self.paletteReuseFactor + Self.paletteReuseMargin {
                (palette, indices) = (current, mapped)
            } else {
                palette = try Quantization(image, colors: colors, dither: dither)
                indices = palette.sourceIndices
            }
        } else {
            palette = try Quantization(image, colors: colors, dither: dither)
            indices = palette.sourceIndices
            try start(size: image.size, globalPalette: palette)
        }
        current = palette
        var transparentIndex: Int?
        if image.hasAlpha, let clear = palette.palette.indices.min(by: { palette.palette[$0].alpha < palette.palette[$1].alpha }),
           palette.palette[clear].alpha < 128 {
            transparentIndex = clear
            let seeThrough = palette.palette.map { $0.alpha < 128 }
            for i in indices.indices where seeThrough[Int(indices[i])] { indices[i] = UInt8(clear) }
        }
        var local = palette === global ? [] : Self.table(palette.palette)
        let added = indices.withUnsafeMutableBufferPointer { data in
            local.withUnsafeMutableBufferPointer { table in
                var frame = CGIF_FrameConfig()
                frame.pImageData = data.baseAddress
                frame.delay = Self.centiseconds(delay, asked: delayAsked)
                if !table.isEmpty {
                    frame.attrFlags |= UInt32(CGIF_FRAME_ATTR_USE_LOCAL_TABLE)
                    frame.pLocalPalette = table.baseAddress
                    frame.numLocalPaletteEntries = UInt16(table.count / 3)
                }
                if let transparentIndex {
                    frame.attrFlags |= UInt32(CGIF_FRAME_ATTR_HAS_ALPHA)
                    frame.transIndex = UInt8(transparentIndex)
                } else {
                    frame.genFlags = UInt32(CGIF_FRAME_GEN_USE_TRANSPARENCY | CGIF_FRAME_GEN_USE_DIFF_WINDOW)
                }
                return cgif_addframe(gif, &frame)
            }
        }
        guard added == Int32(CGIF_OK.rawValue) else { throw ImageError(.unwritable, reason: "cgif could not encode frame \(frameCount)") }
        frameCount += 1
    }

    private func start(size: Size, globalPalette: Quantization) throws {
        self.size = size
        global = globalPalette
        var table = Self.table(globalPalette.palette)
        try table.withUnsafeMutableBufferPointer { table in
            var config = CGIF_Config()
            config.pGlobalPalette = table.baseAddress
            config.numGlobalPaletteEntries = UInt16(table.count / 3)
            config.width = UInt16(size.width)
            config.height = UInt16(size.height)
            config.pWriteFn = CGIFOutput.write
            config.pContext = output.context
            config.attrFlags = UInt32(CGIF_ATTR_IS_ANIMATED)
            // `plays` counts showings; GIF's loop extension counts the repeats after the first.
            switch plays {
            case 0?: config.numLoops = UInt16(CGIF_INFINITE_LOOP)
            case let plays? where plays > 1: config.numLoops = UInt16(min(plays - 1, 65_535))
            default: config.attrFlags |= UInt32(CGIF_ATTR_NO_LOOP)
            }
            guard let made = cgif_newgif(&config) else { throw ImageError(.unwritable, reason: "cgif could not start a GIF") }
            gif = made
        }
    }

    func finish() throws -> ByteChunks {
        guard let gif else { throw ImageError(.unwritable, reason: "an animation with no frames") }
        self.gif = nil
        guard cgif_close(gif) == Int32(CGIF_OK.rawValue) else { throw ImageError(.unwritable, reason: "cgif could not finish the GIF") }
        return output.bytes
    }
}
