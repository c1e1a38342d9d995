import ImagePipe

/// What the decoding fuzzer checks for any bytes: reading the header and decoding never crash,
/// hang or exhaust memory, whatever the format claims; every failure is an `ImageError`; and
/// a picture that decodes has the size its header promised.
public enum DecodeFuzzCheck {
    /// Small limits, so that a test case costs little; the limits themselves are part of what is
    /// tested (a bomb must be refused, not attempted).
    static let options = LoadOptions(maxPixels: 4_000_000, maxInputBytes: 1 << 20)

    /// Checks one input; a broken promise stops the process (so libFuzzer reports it).
    public static func check(_ bytes: UnsafeBufferPointer<UInt8>) {
        let data = Array(bytes)
        let header: ImageHeader
        do {
            header = try ImageHeader.read(bytes: data, options: options)
        } catch is ImageError {
            return
        } catch {
            preconditionFailure("reading a header threw \(error), not an ImageError")
        }
        precondition(header.storedSize.width > 0 && header.storedSize.height > 0, "a header with an empty size: \(header)")
        precondition(SourceFormat.vetted.contains { $0.loaderName == header.format }, "a header in a format not allowed: \(header.format)")
        // Damaged data either way: refused at the strictest level, and as what the decoder makes of it.
        for failOn in [FailOn.warning, .none] {
            var options = options
            options.failOn = failOn
            do {
                let image = try Image.decode(data, options: options)
                precondition(image.size == header.decodedSize(applyingOrientation: true),
                             "decoded \(image.size) where the header said \(header.decodedSize(applyingOrientation: true)) (\(header.format))")
            } catch is ImageError {
            } catch {
                preconditionFailure("decoding threw \(error), not an ImageError")
            }
            checkFrames(data, header: header, failOnDamage: failOn != .none)
        }
    }

    /// An animation's frames (giflib, libwebp's animation decoder) decode one at a time, each the
    /// canvas's size, within the pixel limit counted over the frames, or fail with an ImageError.
    static func checkFrames(_ data: [UInt8], header: ImageHeader, failOnDamage: Bool) {
        // A run refuses a canvas past the pixel limit before any frame (`Load.describe`).
        guard let format = SourceFormat(rawValue: header.format), format == .gif || format == .webp,
              header.storedSize.pixelCount <= options.maxPixels ?? Int.max else { return }
        do {
            guard let decoder = try AnimationDecoding.decoder(for: data, format: format, canvas: header.storedSize,
                                                              failOnDamage: failOnDamage, path: nil) else { return }
            var pixels = 0
            while let frame = try decoder.next() {
                precondition(frame.image.size == decoder.canvas, "a \(frame.image.size) frame on a \(decoder.canvas) canvas")
                pixels += decoder.canvas.pixelCount
                if pixels > options.maxPixels ?? Int.max { break }
            }
        } catch is ImageError {
        } catch {
            preconditionFailure("decoding frames threw \(error), not an ImageError")
        }
    }
}
