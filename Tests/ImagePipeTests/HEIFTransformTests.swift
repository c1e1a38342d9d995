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

    /// The size `info`, `explain` and the plan use is the one shown, cropped by `clap` and turned
    /// by `irot`, whatever the order in which the file lists its properties: libheif gave the
    /// stored 32x16 for link-u's order (the turn and crop before `ispe`) while it decoded the
    /// turned 12x24, so a `fit` squashed the picture.
    @Test(arguments: [false, true]) func anAVIFHeaderSaysTheCroppedTurnedSize(transformsFirst: Bool) throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("turned.avif")
        let stored = try Self.quadrants()
        try AVIFBoxWriter.write(stored, to: path, rotation: 1, mirror: nil, crop: Size(24, 12), transformsFirst: transformsFirst)
        let header = try ImageHeader.read(path: path)
        #expect(header.storedSize == Size(12, 24))
        let decoded = try Image.load(path: path)
        #expect(decoded.size == Size(12, 24))
        // Cropped to the middle, then turned a quarter anticlockwise: the top right quadrant
        // comes to the top left.
        #expect(Self.quadrantColors(decoded) == Self.quadrantColors(stored.orientedByExif(8)))
        // The plan works on the shown size: a 200x100 picture turned a quarter fits 50x50 as 25x50.
        let wide = directory.file("wide.avif")
        try AVIFBoxWriter.write(try Synthetic.gradient(200, 100), to: wide, rotation: 1, mirror: nil, transformsFirst: transformsFirst)
        let fitted = try CommandRunner.run(["run", "-e", "fit 50x50", wide, "-o", directory.file("fitted.png")])
        #expect(fitted.status == 0, "\(fitted.standardError)")
        #expect(try Image.load(path: directory.file("fitted.png")).size == Size(25, 50))
    }

    /// A gray (4:0:0) AVIF in limited range is expanded to full range, as Chromium and Pillow
    /// show it: a ramp over every level comes out 0 to 255 (libheif gave 16 to 235).
    @Test func aLimitedRangeGrayAVIFSpansEveryLevel() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("gray.avif")
        try AVIFBoxWriter.writeGray(size: Size(256, 4), to: path) { x, _ in x }
        let decoded = try Image.load(path: path)
        for x in 0..<256 {
            let level = decoded.pixel(x: x, y: 1)
            #expect(abs(Int(level.red) - x) <= 1 && level.red == level.green && level.green == level.blue, "level \(x) read as \(level)")
        }
    }
}
