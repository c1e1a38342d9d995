import Foundation
import Testing
import ImagePipe
import TestSupport

@Suite struct ImageTests {
    @Test func saveWritesTheFormatItsNameSaysAtomically() throws {
        let directory = try TemporaryDirectory()
        let image = try Synthetic.gradient(7, 5)
        try image.save(to: directory.file("g.png"))
        let back = try Image.load(path: directory.file("g.png"))
        #expect(back.size == image.size && back.pixel(x: 6, y: 4) == image.pixel(x: 6, y: 4))
        try image.save(to: directory.file("g.bin"), format: .webp, options: SaveOptions(lossless: true))
        #expect(try ImageHeader.read(path: directory.file("g.bin")).format == .webp)
        // No format to be had: an error naming the file, and nothing written.
        let error = try #require(throws: ImageError.self) { try image.save(to: directory.file("g.xyz")) }
        #expect(error.path == directory.file("g.xyz") && error.reason.contains("no writable format is .xyz"), "\(error)")
        // A failed encode leaves the file there as it was.
        let big = try Image.filled(Color(red: 1, green: 2, blue: 3), size: Size(300, 10))
        #expect(throws: ImageError.self) { try big.save(to: directory.file("g.png"), format: .ico) }
        #expect(try Image.load(path: directory.file("g.png")).size == Size(7, 5))
        #expect(try directory.contents().sorted() == ["g.bin", "g.png"])
    }

    @Test func makeAndProbePixels() throws {
        let image = try Synthetic.gradient(7, 5)
        #expect(image.size == Size(7, 5))
        #expect(!image.hasAlpha && image.channelCount == 3)
        #expect(image.pixel(x: 0, y: 0) == Color(red: 0, green: 0, blue: 96))
        #expect(image.pixel(x: 6, y: 4) == Color(red: 255, green: 255, blue: 96))
    }

    @Test(arguments: [ImageFormat.png, .tiff, .bmp, .ico])
    func losslessRoundTrip(format: ImageFormat) throws {
        let alpha = format != .bmp
        let original = try Synthetic.image(9, 6, alpha: alpha) { x, y in
            Color(red: UInt8(x * 28), green: UInt8(y * 40), blue: UInt8((x + y) * 9), alpha: alpha ? UInt8(255 - x * 20) : 255) // alpha ≥ 95
        }
        // ICO is written but, as an unvetted format, read only when allowed.
        let decoded = try Image.decode(original.encoded(as: format), options: LoadOptions(allowedFormats: ImageFormat.vetted.union([.ico])))
        #expect(decoded.size == original.size)
        for y in 0..<6 {
            for x in 0..<9 {
                #expect(decoded.pixel(x: x, y: y) == original.pixel(x: x, y: y), "pixel \(x),\(y) in \(format)")
            }
        }
    }

    @Test(arguments: [ImageFormat.jpeg, .webp])
    func lossyRoundTrip(format: ImageFormat) throws {
        try #require(format.isWritable, "no \(format) saver installed")
        let original = try Synthetic.gradient(32, 24)
        let decoded = try Image.decode(original.encoded(as: format, options: SaveOptions(quality: 95)))
        #expect(decoded.size == original.size)
        for (x, y) in [(0, 0), (16, 12), (31, 23)] {
            #expect(Synthetic.close(decoded.pixel(x: x, y: y), original.pixel(x: x, y: y), tolerance: 12), "\(x),\(y)")
        }
    }

    @Test func jpegFlattensAlphaOntoBackground() throws {
        let seeThrough = try Image.filled(Color(red: 0, green: 0, blue: 0, alpha: 0), size: Size(16, 16))
        let onWhite = try Image.decode(seeThrough.encoded(as: .jpeg))
        #expect(!onWhite.hasAlpha)
        #expect(Synthetic.close(onWhite.pixel(x: 8, y: 8), .white, tolerance: 2))
        let onRed = try Image.decode(seeThrough.encoded(as: .jpeg, options: SaveOptions(background: Color(red: 255, green: 0, blue: 0))))
        #expect(Synthetic.close(onRed.pixel(x: 8, y: 8), Color(red: 255, green: 0, blue: 0), tolerance: 3))
    }

    @Test func icoRefusesMoreThan256Pixels() throws {
        #expect(throws: ImageError.self) { try Synthetic.gradient(300, 10).encoded(as: .ico) }
    }

    /// Orientation 6 means "turn 90° clockwise to display": the stored left edge becomes the top.
    @Test func exifOrientationIsAppliedOnLoad() throws {
        let directory = try TemporaryDirectory()
        let stored = try Synthetic.halves(40, 20) // red left, blue right
        let path = try directory.write(Synthetic.withExifOrientation(stored.encoded(as: .jpeg), orientation: 6), to: "turned.jpg")

        let header = try ImageHeader.read(path: path)
        #expect(header.orientation == 6)
        #expect(header.decodedSize(applyingOrientation: true) == Size(20, 40))

        let turned = try Image.load(path: path)
        #expect(turned.size == Size(20, 40))
        #expect(Synthetic.close(turned.pixel(x: 10, y: 5), Color(red: 255, green: 0, blue: 0), tolerance: 40))
        #expect(Synthetic.close(turned.pixel(x: 10, y: 35), Color(red: 0, green: 0, blue: 255), tolerance: 40))

        let raw = try Image.load(path: path, options: LoadOptions(applyOrientation: false))
        #expect(raw.size == Size(40, 20))
        #expect(Synthetic.close(raw.pixel(x: 5, y: 10), Color(red: 255, green: 0, blue: 0), tolerance: 40))
    }

    /// The reset patches the tag the decode turns by, in either byte order, after other tags,
    /// and nothing else; a block without a SHORT orientation stays as it is.
    @Test(arguments: [true, false])
    func orientationResetPatchesOnlyTheOrientationValue(littleEndian: Bool) throws {
        func short(_ value: Int) -> [UInt8] { littleEndian ? [UInt8(value & 0xFF), UInt8(value >> 8)] : [UInt8(value >> 8), UInt8(value & 0xFF)] }
        func long(_ value: Int) -> [UInt8] { littleEndian ? short(value) + [0, 0] : [0, 0] + short(value) }
        func block(orientationType: Int) -> [UInt8] {
            var tiff: [UInt8] = littleEndian ? [0x49, 0x49, 0x2A, 0x00, 0x08, 0x00, 0x00, 0x00] : [0x4D, 0x4D, 0x00, 0x2A, 0x00, 0x00, 0x00, 0x08]
            tiff += short(2) // two entries: ImageWidth, then Orientation
            tiff += short(0x0100) + short(3) + long(1) + short(640) + [0, 0]
            tiff += short(0x0112) + short(orientationType) + long(1) + short(6) + [0, 0]
            return tiff + [0, 0, 0, 0]
        }
        let turned = block(orientationType: 3)
        #expect(ExifBlock(turned).summary.orientation == 6)
        let reset = ExifBlock(turned).withOrientationReset()
        #expect(reset.summary.orientation == 1)
        // In the JPEG the decode reads, too: the reset picture is not turned again.
        let jpeg = try Synthetic.gradient(40, 20).encoded(as: .jpeg)
        let app1 = { (tiff: [UInt8]) -> [UInt8] in
            let body = Array("Exif\0\0".utf8) + tiff
            return [0xFF, 0xE1, UInt8((body.count + 2) >> 8), UInt8((body.count + 2) & 0xFF)] + body
        }
        #expect(try ImageHeader.read(bytes: Array(jpeg[0..<2]) + app1(turned) + Array(jpeg[2...])).orientation == 6)
        #expect(try ImageHeader.read(bytes: Array(jpeg[0..<2]) + app1(reset.bytes) + Array(jpeg[2...])).orientation == 1)
        let changed = zip(turned, reset.bytes).enumerated().filter { $0.element.0 != $0.element.1 }.map(\.offset)
        #expect(changed == [littleEndian ? 30 : 31]) // the value's low byte: 8 + 2 + 12 + 8, one later big-endian
        let long = block(orientationType: 4)
        #expect(ExifBlock(long).withOrientationReset().bytes == long)
        #expect(ExifBlock(Array(turned.prefix(20))).withOrientationReset().bytes == Array(turned.prefix(20)))
    }

    @Test func headerFromBytes() throws {
        let tiny = try Synthetic.gradient(12, 10).encoded(as: .png) // under the loader's 128-byte sniff
        #expect(try ImageHeader.read(bytes: tiny) == ImageHeader(storedSize: Size(12, 10), format: .png))
        let turned = Synthetic.withExifOrientation(try Synthetic.gradient(40, 20).encoded(as: .jpeg), orientation: 8)
        let header = try ImageHeader.read(bytes: turned)
        #expect(header.orientation == 8 && header.decodedSize(applyingOrientation: true) == Size(20, 40))
        #expect(throws: ImageError.self) { try ImageHeader.read(bytes: Array("plain text".utf8)) }
    }

    @Test func missingFileNamesFileAndReason() throws {
        let error = try #require(throws: ImageError.self) { try Image.load(path: "/nonexistent/photo.jpg") }
        #expect(error.description == "/nonexistent/photo.jpg: cannot read: No such file or directory")
    }

    @Test func truncatedJpegIsAnErrorNotAGreyHalf() throws {
        let directory = try TemporaryDirectory()
        let jpeg = try Synthetic.gradient(64, 64).encoded(as: .jpeg)
        let path = try directory.write(Array(jpeg.prefix(jpeg.count * 2 / 3)), to: "cut.jpg")
        let error = try #require(throws: ImageError.self) { try Image.load(path: path) }
        #expect(error.kind == .corrupt)
        #expect(error.description == "\(path): corrupt image: Premature end of JPEG file")
    }

    @Test func truncatedPngIsAnError() throws {
        let png = try Synthetic.gradient(64, 64).encoded(as: .png)
        let error = try #require(throws: ImageError.self) { try Image.decode(png.prefix(png.count - 20)) }
        #expect(error.kind == .corrupt)
    }

    @Test func textNamedPngIsUnsupported() throws {
        let directory = try TemporaryDirectory()
        let path = try directory.write("hello, I am not a picture\n", to: "fake.png")
        let error = try #require(throws: ImageError.self) { try Image.load(path: path) }
        #expect(error.description == "\(path): unsupported format: not a picture format ImagePipe recognizes by its first bytes")
    }

    @Test func emptyFileIsCorrupt() throws {
        let directory = try TemporaryDirectory()
        let path = try directory.write([], to: "empty.jpg")
        let error = try #require(throws: ImageError.self) { try Image.load(path: path) }
        #expect(error.description == "\(path): corrupt image: the file is empty")
    }

    @Test func unwritableOutputLeavesNothing() throws {
        let directory = try TemporaryDirectory()
        let bytes = try Synthetic.gradient(4, 4).encoded(as: .png)
        let error = try #require(throws: ImageError.self) {
            try bytes.withUnsafeBytes { try ImageFile.writeAtomically($0, to: directory.file("missing/out.png")) }
        }
        #expect(error.description == "\(directory.file("missing/out.png")): cannot write: No such file or directory")
        #expect(try directory.contents().isEmpty)
    }

    @Test func atomicWriteLeavesOnlyTheFinalFile() throws {
        let directory = try TemporaryDirectory()
        let bytes = try Synthetic.gradient(4, 4).encoded(as: .png)
        try bytes.withUnsafeBytes { try ImageFile.writeAtomically($0, to: directory.file("out.png")) }
        #expect(try directory.contents() == ["out.png"])
        #expect(try Image.load(path: directory.file("out.png")).size == Size(4, 4))
    }

    @Test func pixelLimitRefusesFromTheHeader() throws {
        let directory = try TemporaryDirectory()
        let path = try directory.write(Synthetic.gradient(100, 100).encoded(as: .png), to: "big.png")
        let error = try #require(throws: ImageError.self) { try Image.load(path: path, options: LoadOptions(maxPixels: 9_999)) }
        #expect(error.kind == .tooLarge)
        #expect(try Image.load(path: path, options: LoadOptions(maxPixels: 10_000)).size == Size(100, 100))
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(throws: ImageError.self) { try Image.decode(bytes, options: LoadOptions(maxPixels: 50)) }
    }

    @Test func cropSharesPixelsAndScaleResizes() throws {
        let image = try Synthetic.gradient(20, 10)
        let crop = try image.cropped(to: Rect(x: 5, y: 2, width: 4, height: 3))
        #expect(crop.size == Size(4, 3))
        #expect(crop.pixel(x: 0, y: 0) == image.pixel(x: 5, y: 2))
        #expect(crop.pixel(x: 3, y: 2) == image.pixel(x: 8, y: 4))
        #expect(throws: ImageError.self) { try image.cropped(to: Rect(x: 18, y: 0, width: 4, height: 3)) }
        #expect(try image.scaled(to: Size(7, 3)).size == Size(7, 3))
    }
}
