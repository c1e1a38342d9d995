import CJXL

/// The buffer libjxl decodes one frame into: 8-bit samples, gray or RGB as the file is, with
/// alpha when it has it, rows packed. `image` makes the picture of it (gray made RGB).
final class JXLPixels {
    private let buffer: UnsafeMutableBufferPointer<UInt8>
    private let size: Size
    private let gray: Bool
    private let alpha: Bool

    /// Hands libjxl a buffer for the frame it is about to decode (`JXL_DEC_NEED_IMAGE_OUT_BUFFER`).
    init(stream: JXLStream) throws {
        let info = stream.info
        size = stream.storedSize
        gray = info.num_color_channels == 1
        alpha = info.alpha_bits > 0
        var format = Self.format(gray: gray, alpha: alpha)
        var needed = 0
        guard JxlDecoderImageOutBufferSize(stream.decoder, &format, &needed) == JXL_DEC_SUCCESS,
              needed == size.pixelCount * Int(format.num_channels) else {
            throw stream.damaged("libjxl asks for a buffer that does not fit its \(size) picture")
        }
        buffer = .allocate(capacity: max(needed, 1))
        // Black where a cut file leaves rows undecoded (`fail=none`).
        buffer.initialize(repeating: 0)
        guard JxlDecoderSetImageOutBuffer(stream.decoder, &format, buffer.baseAddress, needed) == JXL_DEC_SUCCESS else {
            buffer.deallocate()
            throw stream.damaged("libjxl takes no buffer for its pixels")
        }
    }

    deinit { buffer.deallocate() }

    /// Packed 8-bit samples: gray or RGB, then alpha.
    static func format(gray: Bool, alpha: Bool) -> JxlPixelFormat {
        JxlPixelFormat(num_channels: UInt32((gray ? 1 : 3) + (alpha ? 1 : 0)), data_type: JXL_TYPE_UINT8, endianness: JXL_NATIVE_ENDIAN, align: 0)
    }

    /// The picture of the samples decoded so far.
    var image: Image {
        get throws {
            let channels = (gray ? 1 : 3) + (alpha ? 1 : 0)
            return try Image.make(size: size, hasAlpha: alpha) { writer in
                for y in 0..<size.height {
                    let row = writer.row(y), source = buffer.baseAddress! + y * size.width * channels
                    if !gray {
                        row.baseAddress!.update(from: source, count: size.width * channels)
                        continue
                    }
                    let out = alpha ? 4 : 3
                    for x in 0..<size.width {
                        let value = source[x * channels]
                        row[x * out] = value
                        row[x * out + 1] = value
                        row[x * out + 2] = value
                        if alpha { row[x * out + 3] = source[x * channels + 1] }
                    }
                }
            }
        }
    }
}
