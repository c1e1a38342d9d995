import CAvif
import Foundation
@testable import ImagePipe
@testable import ImagePipeCore
import Testing
import TestSupport

/// A HEIF or AVIF file may store its pixels turned and say how to show them with the
/// container's `irot` (a turn anticlockwise by quarters) and `imir` (a mirror) boxes, as phones
/// do. The picture read is the one shown, its size the shown size, before any stage plans on it.
struct HEIFTransformTests {
    /// Four colored quadrants of a 32×16 picture: every turn and mirror moves them differently.
    static func quadrants() throws -> Image {
        try Synthetic.image(32, 16) { x, y in
            switch (x < 16, y < 8) {
            case (true, true): Color(red: 230, green: 30, blue: 30)
            case (false, true): Color(red: 30, green: 200, blue: 30)
            case (true, false): Color(red: 30, green: 30, blue: 220)
            case (false, false): Color(red: 240, green: 220, blue: 40)
            }
        }
    }

    /// The color at the center of each quadrant of `image`, in reading order.
    static func quadrantColors(_ image: Image) -> [Color] {
        let (w, h) = (image.width, image.height)
        return [(w / 4, h / 4), (3 * w / 4, h / 4), (w / 4, 3 * h / 4), (3 * w / 4, 3 * h / 4)].map { image.pixel(x: $0.0, y: $0.1) }
    }

    @Test(arguments: 1...8) func everyHEICOrientationIsShownAsItsBoxesSay(orientation: Int) throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("turned.heic")
        let stored = try Self.quadrants()
        try HEICWriter.write(stored, to: path, quality: 95, orientation: orientation)
        let shown = stored.orientedByExif(orientation)
        let header = try ImageHeader.read(path: path)
        #expect(header.storedSize == shown.size, "orientation \(orientation): the header's size is the shown size")
        let decoded = try Image.load(path: path)
        #expect(decoded.size == shown.size)
        for (got, want) in zip(Self.quadrantColors(decoded), Self.quadrantColors(shown)) {
            #expect(Synthetic.close(got, want, tolerance: 24), "orientation \(orientation): \(got) where \(want) is shown")
        }
    }

    /// libavif writes the boxes by their own numbers (not EXIF's): a quarter turn anticlockwise
    /// is EXIF's 8, a left-right mirror EXIF's 2. A reader that ignored them, or turned the wrong
    /// way, puts the quadrants elsewhere.
    @Test(arguments: [(1, nil, 8), (nil, 1, 2), (2, 0, 2), (3, nil, 6)] as [(Int?, Int?, Int)])
    func avifRotationAndMirrorBoxesAreApplied(angle: Int?, mirror: Int?, exif: Int) throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("turned.avif")
        let stored = try Self.quadrants()
        try AVIFBoxWriter.write(stored, to: path, rotation: angle, mirror: mirror)
        let decoded = try Image.load(path: path)
        let shown = stored.orientedByExif(exif)
        #expect(decoded.size == shown.size)
        #expect(Self.quadrantColors(decoded) == Self.quadrantColors(shown), "irot \(String(describing: angle)), imir \(String(describing: mirror))")
    }
}

/// Lossless AVIF files with `irot`/`imir` boxes, written with libavif's own numbers.
enum AVIFBoxWriter {
    struct Failure: Error { let result: avifResult }

    static func write(_ image: Image, to path: String, rotation: Int?, mirror: Int?) throws {
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
        var result = avifImageRGBToYUV(avif, &rgb)
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
        avif.pointee.transformFlags = flags
        let encoder = avifEncoderCreate()!
        defer { avifEncoderDestroy(encoder) }
        encoder.pointee.minQuantizer = AVIF_QUANTIZER_LOSSLESS
        encoder.pointee.maxQuantizer = AVIF_QUANTIZER_LOSSLESS
        encoder.pointee.speed = 8
        var output = avifRWData()
        defer { avifRWDataFree(&output) }
        result = avifEncoderWrite(encoder, avif, &output)
        guard result == AVIF_RESULT_OK else { throw Failure(result: result) }
        try Data(UnsafeBufferPointer(start: output.data, count: output.size)).write(to: URL(fileURLWithPath: path))
    }
}
