import CJXL

/// libjxl's encoder for one file: the basic info, color, metadata boxes, then frames (pixels,
/// or a JPEG's own coefficients), then the bytes. `JXLEncoder`, `JXLAnimationEncoder` and
/// `JXLRecompression` each drive one.
///
/// `save quality=` becomes a Butteraugli distance as cjxl and libvips map it: from quality 30 up,
/// 0.1 + (100 − quality) · 0.09 (quality 90, the default, is distance 1.0, cjxl's default); below
/// 30 a parabola that meets it there and reaches 25 at quality 0. `effort` is libjxl's, 1–9 (7,
/// cjxl's and libvips' default). `lossless=true` codes the pixels exactly (modular, no XYB).
final class JXLWriter {
    private let encoder: OpaquePointer
    private var runner: UnsafeMutableRawPointer?
    let settings: OpaquePointer
    private var closed = false

    /// The distance libjxl codes at for `quality` (1–100).
    static func distance(quality: Int) -> Float {
        let q = Float(min(max(quality, 0), 100))
        return q >= 30 ? 0.1 + (100 - q) * 0.09 : 53 / 3000 * q * q - 23 / 20 * q + 25
    }

    /// The effort libjxl takes when `save` says none.
    static let defaultEffort = 7

    init(quality: Int, effort: Int, lossless: Bool) throws {
        guard let encoder = JxlEncoderCreate(nil) else { throw ImageError(.unwritable, reason: "libjxl could not make an encoder") }
        self.encoder = encoder
        runner = JxlThreadParallelRunnerCreate(nil, max(1, System.coreCount))
        guard let runner, JxlEncoderSetParallelRunner(encoder, JxlThreadParallelRunner, runner) == JXL_ENC_SUCCESS,
              let settings = JxlEncoderFrameSettingsCreate(encoder, nil) else {
            JxlEncoderDestroy(encoder)
            if let runner { JxlThreadParallelRunnerDestroy(runner) }
            throw ImageError(.unwritable, reason: "libjxl could not start its encoder")
        }
        self.settings = settings
        var ready = JxlEncoderFrameSettingsSetOption(settings, JXL_ENC_FRAME_SETTING_EFFORT, Int64(min(max(effort, 1), 9))) == JXL_ENC_SUCCESS
        if lossless {
            ready = ready && JxlEncoderSetFrameLossless(settings, JXL_TRUE) == JXL_ENC_SUCCESS
        } else {
            ready = ready && JxlEncoderSetFrameDistance(settings, Self.distance(quality: quality)) == JXL_ENC_SUCCESS
        }
        try check(ready, "take the settings")
    }

    deinit {
        JxlEncoderDestroy(encoder)
        if let runner { JxlThreadParallelRunnerDestroy(runner) }
    }

    /// The picture's size and channels, its color (`icc`, else sRGB), and an animation's loop
    /// count (ticks of a millisecond) when `animation` gives one.
    func start(size: Size, alpha: Bool, lossless: Bool, icc: [UInt8]?, animationPlays: Int?) throws {
        var info = JxlBasicInfo()
        JxlEncoderInitBasicInfo(&info)
        info.xsize = UInt32(size.width)
        info.ysize = UInt32(size.height)
        info.bits_per_sample = 8
        info.num_color_channels = 3
        if alpha {
            info.alpha_bits = 8
            info.num_extra_channels = 1
        }
        // Lossless keeps the pixels in their own color space; lossy codes them in XYB.
        info.uses_original_profile = lossless ? JXL_TRUE : JXL_FALSE
        if let plays = animationPlays {
            info.have_animation = JXL_TRUE
            info.animation.tps_numerator = 1000
            info.animation.tps_denominator = 1
            info.animation.num_loops = UInt32(max(0, plays))
        }
        try check(JxlEncoderSetBasicInfo(encoder, &info) == JXL_ENC_SUCCESS, "take a \(size) picture")
        if let icc {
            try check(icc.withUnsafeBufferPointer { JxlEncoderSetICCProfile(encoder, $0.baseAddress, $0.count) } == JXL_ENC_SUCCESS,
                      "take the ICC profile")
        } else {
            var srgb = JxlColorEncoding()
            JxlColorEncodingSetToSRGB(&srgb, JXL_FALSE)
            try check(JxlEncoderSetColorEncoding(encoder, &srgb) == JXL_ENC_SUCCESS, "take sRGB")
        }
    }

    /// The EXIF block (TIFF-structured) and XMP packet as the container's `Exif` and `xml ` boxes.
    func addBoxes(exif: [UInt8]?, xmp: [UInt8]?) throws {
        guard exif != nil || xmp != nil else { return }
        try check(JxlEncoderUseContainer(encoder, JXL_TRUE) == JXL_ENC_SUCCESS && JxlEncoderUseBoxes(encoder) == JXL_ENC_SUCCESS, "use boxes")
        // An Exif box starts with the offset of the TIFF header in what follows: 0.
        if let exif { try addBox("Exif", [0, 0, 0, 0] + exif) }
        if let xmp { try addBox("xml ", xmp) }
        JxlEncoderCloseBoxes(encoder)
    }

    private func addBox(_ type: String, _ contents: [UInt8]) throws {
        let name = Array(type.utf8).map { CChar(bitPattern: $0) }
        let added = contents.withUnsafeBufferPointer { JxlEncoderAddBox(encoder, name, $0.baseAddress, $0.count, JXL_FALSE) }
        try check(added == JXL_ENC_SUCCESS, "add its \(type) box")
    }

    /// Adds a frame of `image`'s pixels, shown for `ticks` milliseconds in an animation, with
    /// alpha when the file has it (`start`'s `alpha`: an opaque frame gets alpha 255, and a
    /// frame's alpha is left out of a file without, as an AVIF sequence's first frame decides).
    func add(_ image: Image, alpha: Bool, ticks: UInt32? = nil) throws {
        if let ticks {
            var header = JxlFrameHeader()
            JxlEncoderInitFrameHeader(&header)
            header.duration = ticks
            try check(JxlEncoderSetFrameHeader(settings, &header) == JXL_ENC_SUCCESS, "take the frame's duration")
        }
        let channels = alpha ? 4 : 3, given = image.hasAlpha ? 4 : 3
        let rowBytes = image.width * channels
        var format = JxlPixelFormat(num_channels: UInt32(channels), data_type: JXL_TYPE_UINT8, endianness: JXL_NATIVE_ENDIAN, align: 0)
        // libjxl reads packed rows: gdk-pixbuf's are padded to 4 bytes.
        var packed = [UInt8](repeating: 255, count: rowBytes * image.height)
        packed.withUnsafeMutableBufferPointer { target in
            for y in 0..<image.height {
                let row = image.row(y), out = target.baseAddress! + y * rowBytes
                if channels == given {
                    out.update(from: row.baseAddress!, count: rowBytes)
                    continue
                }
                for x in 0..<image.width {
                    for channel in 0..<3 { out[x * channels + channel] = row[x * given + channel] }
                }
            }
        }
        let added = packed.withUnsafeBytes { JxlEncoderAddImageFrame(settings, &format, $0.baseAddress, $0.count) }
        try check(added == JXL_ENC_SUCCESS, "encode the picture")
    }

    /// Adds a JPEG's own DCT coefficients as the frame, with what libjxl needs to give the
    /// JPEG back bit for bit (`jbrd`), as cjxl's JPEG recompression does.
    func addJPEG(_ bytes: [UInt8]) throws {
        try check(JxlEncoderUseContainer(encoder, JXL_TRUE) == JXL_ENC_SUCCESS && JxlEncoderStoreJPEGMetadata(encoder, JXL_TRUE) == JXL_ENC_SUCCESS,
                  "keep the JPEG's reconstruction data")
        let added = bytes.withUnsafeBufferPointer { JxlEncoderAddJPEGFrame(settings, $0.baseAddress, $0.count) }
        try check(added == JXL_ENC_SUCCESS, "recompress the JPEG (it reads only baseline and progressive Huffman-coded JPEGs)")
    }

    /// The finished file.
    func finish() throws -> [UInt8] {
        if !closed {
            JxlEncoderCloseInput(encoder)
            closed = true
        }
        var output = [UInt8](repeating: 0, count: 1 << 16)
        var written = 0
        while true {
            var status = JXL_ENC_ERROR
            output.withUnsafeMutableBufferPointer { buffer in
                var next: UnsafeMutablePointer<UInt8>? = buffer.baseAddress! + written
                var available = buffer.count - written
                status = JxlEncoderProcessOutput(encoder, &next, &available)
                written = buffer.count - available
            }
            if status == JXL_ENC_SUCCESS { return Array(output.prefix(written)) }
            guard status == JXL_ENC_NEED_MORE_OUTPUT else { try check(false, "encode the picture"); return [] }
            output.append(contentsOf: repeatElement(0, count: output.count))
        }
    }

    private func check(_ succeeded: Bool, _ what: String) throws {
        guard !succeeded else { return }
        throw ImageError(.unwritable, reason: "libjxl could not \(what) (its error \(JxlEncoderGetError(encoder).rawValue))")
    }
}
