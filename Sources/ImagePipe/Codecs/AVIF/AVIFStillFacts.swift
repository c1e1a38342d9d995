import CAvif

/// What libavif's reading of an AVIF's container says of its still image (the primary item)
/// that libheif 1.15 gets wrong, read without decoding a pixel:
///
/// - the size as shown: the stored size (`ispe`) cropped by `clap`, then turned by `irot`.
///   libheif applies both when it decodes, but its handle's size depends on the order in which
///   the file lists its properties (link-u's samples list `ispe` after `irot`, and their handle
///   gave the stored size), so `info`, `explain` and the plan saw the unturned, uncropped size;
/// - whether it is gray (4:0:0) in limited range: libheif (and libavif 0.11's own conversion)
///   copies such luma to RGB as it is, 16–235, where Chromium and Pillow expand it to 0–255.
struct AVIFStillFacts {
    var shownSize: Size
    var limitedRangeGray: Bool

    /// The facts of the AVIF in `bytes`; nil when libavif cannot be opened or does not read it.
    static func read(_ bytes: [UInt8]) -> AVIFStillFacts? {
        bytes.withUnsafeBufferPointer { buffer in
            guard let decoder = try? AVIFFrameDecoder.parsed(buffer, count: bytes.count, sizeLimit: nil, path: nil,
                                                             source: AVIF_DECODER_SOURCE_PRIMARY_ITEM) else { return nil }
            defer { avifDecoderDestroy(decoder) }
            let image = decoder.pointee.image.pointee
            return AVIFStillFacts(shownSize: shownSize(of: image), limitedRangeGray: isLimitedRangeGray(image))
        }
    }

    /// The stored size, cropped by the clean aperture and turned a quarter when `irot` says so.
    /// The aperture's sides are rounded as libheif rounds them, and kept within the picture.
    static func shownSize(of image: avifImage) -> Size {
        var size = Size(Int(image.width), Int(image.height))
        let clap = image.clap
        if image.transformFlags & AVIF_TRANSFORM_CLAP.rawValue != 0, clap.widthD > 0, clap.heightD > 0 {
            func rounded(_ numerator: UInt32, _ denominator: UInt32) -> Int { (Int(numerator) + Int(denominator) / 2) / Int(denominator) }
            size = Size(min(max(rounded(clap.widthN, clap.widthD), 1), size.width), min(max(rounded(clap.heightN, clap.heightD), 1), size.height))
        }
        if image.transformFlags & AVIF_TRANSFORM_IROT.rawValue != 0, image.irot.angle % 2 == 1 { size = size.transposed }
        return size
    }

    static func isLimitedRangeGray(_ image: avifImage) -> Bool {
        image.yuvFormat == AVIF_PIXEL_FORMAT_YUV400 && image.yuvRange == AVIF_RANGE_LIMITED
    }

    /// Limited-range gray made full range in place, v ↦ (v − 16) · 255 / 219 rounded and held
    /// to 0…255, in the color of each pixel (alpha is left as it is).
    static func expandLimitedRange(_ pixels: UnsafeMutablePointer<UInt8>, size: Size, rowStride: Int, channels: Int) {
        for y in 0..<size.height {
            let row = pixels + y * rowStride
            for x in 0..<size.width {
                for c in 0..<3 { row[x * channels + c] = expanded[Int(row[x * channels + c])] }
            }
        }
    }

    private static let expanded: [UInt8] = (0..<256).map { (level: Int) -> UInt8 in
        let full = ((level - 16) * 510 + 219) / 438 // × 255/219, rounded
        return UInt8(min(max(full, 0), 255))
    }
}
