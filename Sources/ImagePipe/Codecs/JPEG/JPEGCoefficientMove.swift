import CJPEGStrict
#if canImport(Glibc)
import Glibc
#endif

/// A JPEG turned, mirrored or cut by moving its DCT coefficients, as jpegtran does
/// (jpeg_lossless.c): what `save lossless=` writes when the stages only move pixels
/// (`Pipeline+LosslessJPEG` decides when).
public enum JPEGCoefficientMove {
    /// What a lossless rewrite of a JPEG gives.
    public enum Outcome: Sendable {
        /// The new file, and what a trim dropped of the picture asked for (nothing without trim).
        case written([UInt8], trimmed: LosslessJPEGTrim)
        /// The turn or the crop would move a partial block (libjpeg's message says which side).
        case notExact(String)
        /// libjpeg could not read or rewrite the file (damaged, cut short, past the pixel limit…).
        case failed(String)
    }

    /// `bytes`, a JPEG, turned by `turn` and then cut to `crop` (in the turned picture's pixels;
    /// nil for all of it) by moving its DCT coefficients (jpeg_lossless.c); with `trim`, the
    /// partial blocks that cannot move exactly are dropped (`jpegtran -trim`), with `icc`, `exif`
    /// (TIFF-structured, without `Exif\0\0`) and `xmp` as its only metadata. A picture of more than
    /// `maxPixels` fails from its header. Throws an `ImageError` past `deadline` (asked every
    /// few steps of reading and writing) and for a file of more than `maxScans` scans (nil: as
    /// many as the decoder reads).
    public static func move(_ bytes: [UInt8], turn: Dihedral, crop: Rect?, trim: Bool = false, icc: [UInt8]? = nil, exif: [UInt8]? = nil,
                            xmp: [UInt8]? = nil, maxPixels: Int?, maxScans: Int? = nil, deadline: ContinuousClock.Instant?,
                            path: String?) throws(ImageError) -> Outcome {
        let op: Int32 = switch turn {
        case .rotate90: 1
        case .rotate180: 2
        case .rotate270: 3
        case .flip: 4
        case .flop: 5
        case .transpose: 6
        case .transverse: 7
        default: 0
        }
        // Sides and offsets past Int32 fit no JPEG (65,535 pixels a side): refused by the C side's check.
        let crop = crop.map {
            imagepipe_jpeg_lossless_crop(x: Int32(clamping: $0.x), y: Int32(clamping: $0.y), width: Int32(clamping: $0.width), height: Int32(clamping: $0.height))
        }
        var out: UnsafeMutablePointer<UInt8>?
        var outSize: UInt = 0
        var message = [CChar](repeating: 0, count: 512)
        var trimmed = imagepipe_jpeg_lossless_trim(left: 0, top: 0)
        // The decoder's own limits: as many scans, and the deadline asked every few steps.
        var stopAt = deadline ?? .now
        let status = withUnsafeMutablePointer(to: &stopAt) { stopAt in
            let shouldStop: @convention(c) (UnsafeMutableRawPointer?) -> Int32 = { context in
                ContinuousClock.now > context!.assumingMemoryBound(to: ContinuousClock.Instant.self).pointee ? 1 : 0
            }
            var limits = imagepipe_jpeg_limits(max_scans: maxScans.map { Int32(clamping: $0) } ?? StrictJPEG.maxScans, should_stop: deadline == nil ? nil : shouldStop,
                                               context: UnsafeMutableRawPointer(stopAt))
            return bytes.withUnsafeBufferPointer { input in
                withOptionalPointer(crop) { cropPointer in
                    withOptionalBuffer(icc) { icc in
                        withOptionalBuffer(exif) { exif in
                            withOptionalBuffer(xmp) { xmp in
                                imagepipe_jpeg_lossless_transform(input.baseAddress, input.count, op, cropPointer, trim ? 1 : 0, &trimmed,
                                                                  Int64(maxPixels ?? 0), &limits,
                                                                  icc.baseAddress, icc.count, exif.baseAddress, exif.count, xmp.baseAddress, xmp.count,
                                                                  &out, &outSize, &message, message.count)
                            }
                        }
                    }
                }
            }
        }
        let reason = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        // A deadline past, or a file no run would read: the decoding run is not tried after.
        if status == IMAGEPIPE_LOSSLESS_STOPPED { throw ImageError(.timedOut, path: path, reason: reason) }
        if status == IMAGEPIPE_LOSSLESS_REFUSED { throw ImageError(.corrupt, path: path, reason: reason) }
        guard status == IMAGEPIPE_LOSSLESS_OK, let out else {
            return status == IMAGEPIPE_LOSSLESS_NOT_PERFECT ? .notExact(reason) : .failed(reason)
        }
        defer { free(out) }
        return .written(Array(UnsafeBufferPointer(start: out, count: Int(outSize))),
                        trimmed: LosslessJPEGTrim(left: Int(trimmed.left), top: Int(trimmed.top)))
    }
}

private func withOptionalBuffer<R>(_ bytes: [UInt8]?, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
    guard let bytes else { return body(UnsafeBufferPointer(start: nil, count: 0)) }
    return bytes.withUnsafeBufferPointer(body)
}
