import CJXL

/// One walk of libjxl's decoder over a JPEG XL file held whole in memory (a bare codestream or
/// the ISO BMFF container), event by event: what the header, `info`, a still decode and an
/// animation's frames each read.
///
/// The input is given whole but not closed at first: libjxl then says it needs more input where
/// a cut file ends, which tells a cut (`truncated`) from damage (`error`); with the input closed
/// from the start both are one error. Asked for more, the walk keeps what libjxl has decoded of
/// the frame so far (`flushedAtCut`, for `fail=none`), then closes the input and goes on: a last
/// box that runs to the end of the file (size 0) is whole only once libjxl knows the file ends
/// there, and an error after that is the cut. The EXIF and XMP boxes are collected as they pass (Brotli-compressed `brob`
/// boxes decompressed by libjxl), each within `boxLimit`.
final class JXLStream {
    /// What `next` stops at.
    enum Event {
        case basicInfo, colorEncoding, frame, needImageBuffer, fullImage, success
        /// The file ends before the walk does.
        case cut
    }

    /// The most bytes an EXIF or XMP box may decompress to: more is not metadata but a bomb,
    /// and the box is dropped.
    static let boxLimit = 16 << 20

    let decoder: OpaquePointer
    let path: String?
    /// libjxl reads the file from this copy for as long as the decoder lives.
    private let data: UnsafeMutableBufferPointer<UInt8>
    private var runner: UnsafeMutableRawPointer?
    private(set) var info = JxlBasicInfo()
    private(set) var frameHeader = JxlFrameHeader()
    private(set) var exif: [UInt8]?
    private(set) var xmp: [UInt8]?
    /// Whether the file holds JPEG reconstruction data (a `jbrd` box): `djxl` can give back the
    /// JPEG it was made from, bit for bit.
    private(set) var reconstructsJPEG = false
    /// Whether libjxl asked for more input than the file has (then the input was closed).
    private var askedPastEnd = false
    /// Whether the frame being decoded when libjxl asked for more had its decoded part written
    /// out then (`JxlDecoderFlushImage`).
    private(set) var flushedAtCut = false
    /// The box being collected and its buffer.
    private var box: (type: String, buffer: UnsafeMutableBufferPointer<UInt8>)?

    /// A walk stopping at `events`, with libjxl's thread pool when `threaded` (pixel decodes).
    init(bytes: [UInt8], events: [JxlDecoderStatus], threaded: Bool, path: String?) throws {
        self.path = path
        guard let decoder = JxlDecoderCreate(nil) else { throw ImageError(.tooLarge, path: path, reason: "libjxl could not make a decoder") }
        self.decoder = decoder
        data = .allocate(capacity: max(bytes.count, 1))
        _ = data.initialize(from: bytes)
        let wanted = events.reduce(Int32(JXL_DEC_BOX.rawValue)) { $0 | Int32($1.rawValue) }
        var ready = JxlDecoderSubscribeEvents(decoder, wanted) == JXL_DEC_SUCCESS
            && JxlDecoderSetDecompressBoxes(decoder, JXL_TRUE) == JXL_DEC_SUCCESS
            // The stored orientation is applied by ImagePipe, as every format's (`load auto-orient`).
            && JxlDecoderSetKeepOrientation(decoder, JXL_TRUE) == JXL_DEC_SUCCESS
        if threaded, ready {
            runner = JxlThreadParallelRunnerCreate(nil, max(1, System.coreCount))
            ready = runner != nil && JxlDecoderSetParallelRunner(decoder, JxlThreadParallelRunner, runner) == JXL_DEC_SUCCESS
        }
        ready = ready && JxlDecoderSetInput(decoder, data.baseAddress, bytes.count) == JXL_DEC_SUCCESS
        guard ready else { throw ImageError(.tooLarge, path: path, reason: "libjxl could not start its decoder") }
    }

    deinit {
        if let box { box.buffer.deallocate() }
        JxlDecoderDestroy(decoder)
        if let runner { JxlThreadParallelRunnerDestroy(runner) }
        data.deallocate()
    }

    /// The next event asked for; boxes are collected on the way.
    func next() throws -> Event {
        while true {
            let status = JxlDecoderProcessInput(decoder)
            switch status {
            case JXL_DEC_BASIC_INFO:
                guard JxlDecoderGetBasicInfo(decoder, &info) == JXL_DEC_SUCCESS else { throw damaged("its header cannot be read") }
                return .basicInfo
            case JXL_DEC_COLOR_ENCODING: return .colorEncoding
            case JXL_DEC_FRAME:
                guard JxlDecoderGetFrameHeader(decoder, &frameHeader) == JXL_DEC_SUCCESS else { throw damaged("a frame header cannot be read") }
                return .frame
            case JXL_DEC_NEED_IMAGE_OUT_BUFFER: return .needImageBuffer
            case JXL_DEC_FULL_IMAGE: return .fullImage
            case JXL_DEC_SUCCESS:
                finishBox()
                return .success
            case JXL_DEC_NEED_MORE_INPUT:
                guard !askedPastEnd else {
                    finishBox()
                    return .cut
                }
                askedPastEnd = true
                flushedAtCut = JxlDecoderFlushImage(decoder) == JXL_DEC_SUCCESS
                JxlDecoderCloseInput(decoder)
            case JXL_DEC_BOX:
                finishBox()
                startBox()
            case JXL_DEC_BOX_NEED_MORE_OUTPUT:
                growBox()
            case JXL_DEC_ERROR:
                if askedPastEnd {
                    finishBox()
                    return .cut
                }
                throw damaged("libjxl finds its data invalid")
            default:
                throw damaged("libjxl stopped at event \(status.rawValue)")
            }
        }
    }

    /// A damaged file's error, `reason` saying where.
    func damaged(_ reason: String) -> ImageError {
        ImageError(.corrupt, path: path, reason: "the JPEG XL data is damaged: \(reason)")
    }

    /// The color profile of the decoded pixels: nil when they are sRGB (or gray with sRGB's
    /// curve), which needs no conversion; else an ICC profile libjxl writes for them (the
    /// file's own, or one made from the color encoding the file states).
    func pixelProfile() -> [UInt8]? {
        var encoding = JxlColorEncoding()
        if JxlDecoderGetColorAsEncodedProfile(decoder, nil, JXL_COLOR_PROFILE_TARGET_DATA, &encoding) == JXL_DEC_SUCCESS,
           encoding.white_point == JXL_WHITE_POINT_D65, encoding.transfer_function == JXL_TRANSFER_FUNCTION_SRGB,
           encoding.color_space == JXL_COLOR_SPACE_GRAY || (encoding.color_space == JXL_COLOR_SPACE_RGB && encoding.primaries == JXL_PRIMARIES_SRGB) {
            return nil
        }
        var size = 0
        guard JxlDecoderGetICCProfileSize(decoder, nil, JXL_COLOR_PROFILE_TARGET_DATA, &size) == JXL_DEC_SUCCESS, size > 0 else { return nil }
        var bytes = [UInt8](repeating: 0, count: size)
        guard JxlDecoderGetColorAsICCProfile(decoder, nil, JXL_COLOR_PROFILE_TARGET_DATA, &bytes, size) == JXL_DEC_SUCCESS else { return nil }
        return bytes
    }

    /// Whether the file embeds an ICC profile of its own (rather than stating its color
    /// encoding in the codestream's fields).
    var embedsICC: Bool {
        var encoding = JxlColorEncoding()
        return JxlDecoderGetColorAsEncodedProfile(decoder, nil, JXL_COLOR_PROFILE_TARGET_ORIGINAL, &encoding) != JXL_DEC_SUCCESS
    }

    /// The stored size, before the orientation.
    var storedSize: Size { Size(Int(info.xsize), Int(info.ysize)) }

    /// A frame's duration in milliseconds, from its ticks.
    func milliseconds(ticks: UInt32) -> Int {
        let animation = info.animation
        guard animation.tps_numerator > 0 else { return 0 }
        let seconds = Double(ticks) * Double(animation.tps_denominator) / Double(animation.tps_numerator)
        return Int(min(seconds * 1000, Double(Int32.max)).rounded())
    }

    private func startBox() {
        var type = [CChar](repeating: 0, count: 4)
        guard JxlDecoderGetBoxType(decoder, &type, JXL_TRUE) == JXL_DEC_SUCCESS else { return }
        let name = String(decoding: type.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        if name == "jbrd" { reconstructsJPEG = true }
        guard name == "Exif" || name == "xml " else { return }
        let buffer = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: 1 << 16)
        guard JxlDecoderSetBoxBuffer(decoder, buffer.baseAddress, buffer.count) == JXL_DEC_SUCCESS else {
            buffer.deallocate()
            return
        }
        box = (name, buffer)
    }

    /// Doubles the box's buffer, keeping what libjxl wrote; past `boxLimit` the box is dropped.
    private func growBox() {
        guard let current = box else { return }
        let remaining = JxlDecoderReleaseBoxBuffer(decoder)
        let written = current.buffer.count - remaining
        guard current.buffer.count * 2 <= Self.boxLimit else {
            current.buffer.deallocate()
            box = nil
            return
        }
        let grown = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: current.buffer.count * 2)
        _ = grown.initialize(from: current.buffer.prefix(written))
        current.buffer.deallocate()
        box = (current.type, grown)
        _ = JxlDecoderSetBoxBuffer(decoder, grown.baseAddress! + written, grown.count - written)
    }

    private func finishBox() {
        guard let current = box else { return }
        box = nil
        let remaining = JxlDecoderReleaseBoxBuffer(decoder)
        let bytes = Array(current.buffer.prefix(current.buffer.count - remaining))
        current.buffer.deallocate()
        if current.type == "Exif", exif == nil { exif = Self.exifPayload(bytes) }
        if current.type == "xml ", xmp == nil, !bytes.isEmpty { xmp = bytes }
    }

    /// An `Exif` box starts with the offset of the TIFF header, as a HEIF Exif item does.
    private static func exifPayload(_ box: [UInt8]) -> [UInt8]? {
        guard box.count > 4 else { return nil }
        let offset = box[0..<4].reduce(0) { $0 << 8 | Int($1) }
        guard 4 + offset < box.count else { return nil }
        let payload = box[(4 + offset)...]
        // Some writers give offset 0 and put JPEG's `Exif\0\0` before the TIFF header all the same.
        return Array(payload.starts(with: MetadataScanner.exifMarker) ? payload.dropFirst(6) : payload)
    }
}
