import CAvif
import Foundation
@testable import ImagePipe
import ImagePipeCore

/// Lossless AVIF files with `irot`/`imir`/`clap` boxes, written with libavif's own numbers, and
/// gray (4:0:0) ones in limited range.
enum AVIFBoxWriter {
    struct Failure: Error { let result: avifResult }

    /// `image` stored as it is, shown cropped to `crop` (centered; its sides differ from the
    /// picture's by even numbers), then turned by `rotation` quarters anticlockwise and mirrored
    /// by `mirror`. With `transformsFirst`, the item lists those properties before its size, as
    /// link-u's AVIF samples do (libavif lists them last).
    static func write(_ image: Image, to path: String, rotation: Int?, mirror: Int?, crop: Size? = nil, transformsFirst: Bool = false) throws {
        let avif = avifImageCreate(UInt32(image.width), UInt32(image.height), 8, AVIF_PIXEL_FORMAT_YUV444)!
        defer { avifImageDestroy(avif) }
        avif.pointee.matrixCoefficients = avifMatrixCoefficients(AVIF_MATRIX_COEFFICIENTS_IDENTITY)
        avif.pointee.yuvRange = AVIF_RANGE_FULL
        var rgb = avifRGBImage()
        avifRGBImageSetDefaults(&rgb, avif)
        rgb.format = AVIF_RGB_FORMAT_RGB
        avifRGBImageAllocatePixels(&rgb)
        defer { avifRGBImageFreePixels(&rgb) }
        for y in 0..<image.height {
            let row = image.row(y)
            for i in 0..<image.width * 3 { rgb.pixels[y * Int(rgb.rowBytes) + i] = row[i] }
        }
        let result = avifImageRGBToYUV(avif, &rgb)
        guard result == AVIF_RESULT_OK else { throw Failure(result: result) }
        var flags = avifTransformFlags(AVIF_TRANSFORM_NONE.rawValue)
        if let rotation {
            avif.pointee.irot.angle = UInt8(rotation)
            flags |= avifTransformFlags(AVIF_TRANSFORM_IROT.rawValue)
        }
        if let mirror {
            avif.pointee.imir.mode = UInt8(mirror)
            flags |= avifTransformFlags(AVIF_TRANSFORM_IMIR.rawValue)
        }
        if let crop {
            // Centered: the aperture's center is the picture's, offset 0.
            avif.pointee.clap = avifCleanApertureBox(widthN: UInt32(crop.width), widthD: 1, heightN: UInt32(crop.height), heightD: 1,
                                                     horizOffN: 0, horizOffD: 1, vertOffN: 0, vertOffD: 1)
            flags |= avifTransformFlags(AVIF_TRANSFORM_CLAP.rawValue)
        }
        avif.pointee.transformFlags = flags
        var bytes = try encoded(avif)
        if transformsFirst { listTransformsFirst(&bytes) }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    /// A gray picture stored as 4:0:0 in limited range: each luma sample is `level(x, y)` as
    /// full range (0–255) put into 16–235.
    static func writeGray(size: Size, to path: String, level: (Int, Int) -> Int) throws {
        let avif = avifImageCreate(UInt32(size.width), UInt32(size.height), 8, AVIF_PIXEL_FORMAT_YUV400)!
        defer { avifImageDestroy(avif) }
        avif.pointee.yuvRange = AVIF_RANGE_LIMITED
        let allocated = avifImageAllocatePlanes(avif, avifPlanesFlags(AVIF_PLANES_YUV.rawValue))
        guard allocated == AVIF_RESULT_OK, let luma = avif.pointee.yuvPlanes.0 else { throw Failure(result: allocated) }
        for y in 0..<size.height {
            for x in 0..<size.width { luma[y * Int(avif.pointee.yuvRowBytes.0) + x] = UInt8(16 + (level(x, y) * 219 + 127) / 255) }
        }
        try Data(encoded(avif)).write(to: URL(fileURLWithPath: path))
    }

    private static func encoded(_ avif: UnsafeMutablePointer<avifImage>) throws -> [UInt8] {
        let encoder = avifEncoderCreate()!
        defer { avifEncoderDestroy(encoder) }
        encoder.pointee.minQuantizer = AVIF_QUANTIZER_LOSSLESS
        encoder.pointee.maxQuantizer = AVIF_QUANTIZER_LOSSLESS
        encoder.pointee.speed = 8
        var output = avifRWData()
        defer { avifRWDataFree(&output) }
        let result = avifEncoderWrite(encoder, avif, &output)
        guard result == AVIF_RESULT_OK else { throw Failure(result: result) }
        return Array(UnsafeBufferPointer(start: output.data, count: output.size))
    }

    /// Moves the `irot`, `imir` and `clap` properties to the front of the first item's list in
    /// `ipma` (the associations are one byte each in libavif's files): the same bytes reordered.
    static func listTransformsFirst(_ bytes: inout [UInt8]) {
        func big(_ at: Int, _ count: Int) -> Int { bytes[at..<at + count].reduce(0) { $0 << 8 | Int($1) } }
        /// The boxes from `start` to `end`: type and where the contents start and end.
        func boxes(_ start: Int, _ end: Int) -> [(type: String, contents: Range<Int>)] {
            var found: [(String, Range<Int>)] = [], at = start
            while at + 8 <= end {
                let size = big(at, 4)
                guard size >= 8, at + size <= end else { break }
                found.append((String(decoding: bytes[at + 4..<at + 8], as: UTF8.self), at + 8..<at + size))
                at += size
            }
            return found
        }
        guard let meta = boxes(0, bytes.count).first(where: { $0.type == "meta" }),
              let properties = boxes(meta.contents.lowerBound + 4, meta.contents.upperBound).first(where: { $0.type == "iprp" }) else { return }
        let children = boxes(properties.contents.lowerBound, properties.contents.upperBound)
        guard let ipco = children.first(where: { $0.type == "ipco" }), let ipma = children.first(where: { $0.type == "ipma" }) else { return }
        let transforms = Set(boxes(ipco.contents.lowerBound, ipco.contents.upperBound).enumerated()
            .filter { ["irot", "imir", "clap"].contains($0.element.type) }.map { $0.offset + 1 })
        // Version 0 and flags 0: a 2-byte item ID, a count, then 1-byte associations.
        let first = ipma.contents.lowerBound + 8 + 2
        let count = Int(bytes[first])
        let associations = Array(bytes[first + 1..<first + 1 + count])
        let moved = associations.filter { transforms.contains(Int($0 & 0x7F)) } + associations.filter { !transforms.contains(Int($0 & 0x7F)) }
        bytes.replaceSubrange(first + 1..<first + 1 + count, with: moved)
    }
}
