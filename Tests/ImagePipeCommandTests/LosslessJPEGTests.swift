import Foundation
import Testing
import ImagePipe
import TestSupport

/// `save lossless=`: a JPEG turned, mirrored, cropped on whole blocks or given other metadata is
/// written from its own DCT coefficients. Checked against jpegtran (libjpeg-turbo-progs), an
/// independent implementation: the same transform from jpegtran decodes to exactly the same
/// pixels, which only the same coefficients do. (Decoding first and turning the pixels differs
/// by a level or three: libjpeg's IDCT and chroma upsampling round differently once turned.)
@Suite struct LosslessJPEGTests {
    static let photo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Samples/images/boats.jpg").path

    static func pixels(_ path: String) throws -> Image { try Image.load(path: path, options: LoadOptions(applyOrientation: false)) }

    static func jpegtran(_ arguments: [String], _ input: String, _ output: String) throws -> Int32 {
        try CommandRunner.runProgram("/usr/bin/jpegtran", ["-copy", "none", "-outfile", output] + arguments + [input]).status
    }

    @Test(arguments: [
        ("rotate 90", ["-perfect", "-rotate", "90"]),
        ("rotate 180", ["-perfect", "-rotate", "180"]),
        ("rotate 270", ["-perfect", "-rotate", "270"]),
        ("flip", ["-perfect", "-flip", "vertical"]),
        ("flop", ["-perfect", "-flip", "horizontal"]),
        ("rotate 90 | flop", ["-perfect", "-transpose"]),
        ("flop | rotate 90", ["-perfect", "-transverse"]),
        ("crop 64,32,333x222", ["-crop", "333x222+64+32"]),
        ("rotate 90 | crop 16,48,300x200", ["-perfect", "-rotate", "90", "-crop", "300x200+16+48"]),
    ])
    func theCoefficientsAreMovedAsJpegtranMovesThem(stages: String, jpegtran arguments: [String]) throws {
        let directory = try TemporaryDirectory()
        let ours = directory.file("ours.jpg"), theirs = directory.file("theirs.jpg"), decoded = directory.file("decoded.png")
        let result = try CommandRunner.run(["run", "-e", stages, Self.photo, "-o", ours])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(try Self.jpegtran(arguments, Self.photo, theirs) == 0)
        let (a, b) = (try Self.pixels(ours), try Self.pixels(theirs))
        #expect(a.size == b.size)
        #expect(try PictureComparison(a, b).identical, "\(stages): the same coefficients as jpegtran's")
        // And what decoding first would give, to within libjpeg's rounding.
        #expect(try CommandRunner.run(["run", "-e", stages, Self.photo, "-o", decoded]).status == 0)
        #expect(try PictureComparison(a, Self.pixels(decoded)).maxDifference <= 12, "\(stages)")
        // Not re-encoded: a second generation at the default quality would differ from jpegtran's.
        let anew = directory.file("anew.jpg")
        #expect(try CommandRunner.run(["run", "-e", stages + " | save lossless=false", Self.photo, "-o", anew]).status == 0)
        #expect(try !PictureComparison(Self.pixels(anew), b).identical)
    }

    @Test func theEXIFTurnIsDoneLosslesslyAndItsTagReset() throws {
        let directory = try TemporaryDirectory()
        let jpeg = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Self.photo)))
        let phone = try directory.write(Synthetic.withExifOrientation(jpeg, orientation: 6), to: "phone.jpg")
        let upright = directory.file("upright.jpg"), theirs = directory.file("theirs.jpg")
        let result = try CommandRunner.run(["run", "-e", "save keep=exif", phone, "-o", upright])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(try Self.jpegtran(["-perfect", "-rotate", "90"], Self.photo, theirs) == 0)
        #expect(try PictureComparison(Self.pixels(upright), Self.pixels(theirs)).identical)
        #expect(try ExifTool.tags(upright)["EXIF:Orientation"]?.numberValue ?? 1 == 1, "the kept EXIF says upright")
    }

    @Test func metadataChangesCopyTheCoefficients() throws {
        let directory = try TemporaryDirectory()
        let p3 = ColorReference.displayP3()
        let tagged = try directory.write(Image.load(path: Self.photo).withMetadata(ImageMetadata(iccProfile: p3)).encoded(as: .jpeg), to: "p3.jpg")
        try ExifTool.write(tagged, ["-Make=ImagePipeCam", "-XMP-dc:Title=Boats"])
        for keep in ["none", "exif,icc", "icc,exif", "all"] {
            let out = directory.file("out-\(keep).jpg")
            let result = try CommandRunner.run(["run", "-e", "save keep=\(keep)", tagged, "-o", out])
            #expect(result.status == 0, "\(result.standardError)")
            #expect(try PictureComparison(Self.pixels(out), Self.pixels(tagged)).identical, "keep=\(keep): the same pixels")
            let tags = try ExifTool.tags(out)
            // The profile always goes with the pixels, which stay in it.
            #expect(try ExifTool.profile(out) == p3, "keep=\(keep)")
            #expect((tags["EXIF:Make"]?.stringValue == "ImagePipeCam") == (keep != "none"), "keep=\(keep)")
            #expect((tags["XMP:Title"]?.stringValue == "Boats") == (keep == "all"), "keep=\(keep)")
        }
    }

    @Test func whatCannotBeLosslessIsEncodedAnewOrRefused() throws {
        let directory = try TemporaryDirectory()
        // 1000x750 at 4:2:0: neither side a multiple of the 16-pixel blocks.
        let odd = try directory.write(Image.load(path: Self.photo).scaled(to: Size(1000, 750)).encoded(as: .jpeg), to: "odd.jpg")
        let auto = try CommandRunner.run(["run", "-e", "rotate 90", odd, "-o", directory.file("auto.jpg")])
        #expect(auto.status == 0, "\(auto.standardError)")
        #expect(try Self.pixels(directory.file("auto.jpg")).size == Size(750, 1000))
        let required = try CommandRunner.run(["run", "-e", "rotate 90 | save lossless=true", odd, "-o", directory.file("required.jpg")])
        #expect(required.status == 1)
        #expect(required.standardError.contains("lossless=true: ") && required.standardError.contains("16"), "\(required.standardError)")
        #expect(!FileManager.default.fileExists(atPath: directory.file("required.jpg")))
        // A crop off the block grid, a stage that makes pixels, a new quality, a PNG input.
        for (text, reason) in [("crop 3,0,100x100", "16"), ("blur 1", "blur (stage 1) is not a quarter turn, mirror or crop"),
                               ("rotate 90 | save lossless=true quality=70", "quality= asks for a new encoding")] {
            let pipeline = text.contains("save") ? text : text + " | save lossless=true"
            let refused = try CommandRunner.run(["run", "-e", pipeline, Self.photo, "-o", directory.file("refused.jpg")])
            #expect(refused.status == 1 && refused.standardError.contains(reason), "\(text): \(refused.standardError)")
        }
        _ = try directory.write(Synthetic.gradient(32, 32).encoded(as: .png), to: "in.png")
        let png = try CommandRunner.run(["run", "-e", "rotate 90 | save lossless=true", directory.file("in.png"), "-o", directory.file("png.jpg")])
        #expect(png.status == 1 && png.standardError.contains("the input is not a JPEG"))
    }

    @Test func explainSaysLossless() throws {
        let explained = try CommandRunner.run(["explain", "-e", "rotate 90 | crop 0,0,800x640", Self.photo, "-o", "x.jpg"])
        #expect(explained.standardOutput.contains("lossless: not decoded; its DCT coefficients are moved (rotate 90, crop 0,0,800x640)"), "\(explained.standardOutput)")
        let anew = try CommandRunner.run(["explain", "-e", "rotate 90 | save lossless=false", Self.photo, "-o", "x.jpg"])
        #expect(!anew.standardOutput.contains("lossless: not decoded"))
    }
}
