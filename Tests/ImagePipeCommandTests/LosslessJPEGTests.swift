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
        // Not re-encoded: a second generation (at the input's quality) would differ from jpegtran's.
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

    /// A JPEG whose coefficients take more than 256 MiB (7000x7000 at 4:4:4: 294 MB) is cropped
    /// by decoding the crop's region and encoding it anew, with a warning, unless lossless=true
    /// asks for the coefficients: the crop the explanation describes for each.
    @Test func autoKeepsToItsBoundOfCoefficients() throws {
        let directory = try TemporaryDirectory()
        let made = try CommandRunner.runProgram("/usr/bin/vips", ["black", directory.file("black.v"), "7000", "7000", "--bands", "3"])
        let saved = try CommandRunner.runProgram("/usr/bin/vips", ["jpegsave", directory.file("black.v"), directory.file("big.jpg"), "--Q", "90",
                                                                    "--subsample-mode", "off"])
        #expect(made.status == 0 && saved.status == 0, "\(made.standardError)\(saved.standardError)")
        let auto = try CommandRunner.run(["run", "-e", "crop 16,16,64x64", "big.jpg", "-o", "auto.jpg"], in: directory.path)
        #expect(auto.status == 0 && auto.standardError.contains("more than the 256M lossless=auto holds"), "\(auto.standardError)")
        #expect(try Self.pixels(directory.file("auto.jpg")).size == Size(64, 64))
        let explainAuto = try CommandRunner.run(["explain", "-e", "crop 16,16,64x64", "big.jpg", "-o", "auto.jpg"], in: directory.path)
        #expect(explainAuto.standardOutput.contains("only the 64x64 at 16,16 that crop reads is decoded"), "\(explainAuto.standardOutput)")
        let explainRequired = try CommandRunner.run(["explain", "-e", "crop 16,16,64x64 | save lossless=true", "big.jpg", "-o", "required.jpg"],
                                                    in: directory.path)
        #expect(explainRequired.standardOutput.contains("lossless: not decoded"), "\(explainRequired.standardOutput)")
    }

    /// A 203x141 picture at quality 92, 4:2:2, made by the project's encoder: neither side whole
    /// blocks (16 across, 8 down), so no quarter turn or mirror of it is exact; textured, so that
    /// a second encoding or a shifted block shows in the pixels.
    static func oddJPEG(in directory: TemporaryDirectory) throws -> String {
        let picture = try Synthetic.image(203, 141) { x, y in
            Color(red: UInt8(x * 255 / 202), green: UInt8((x * 7 + y * 13) % 256), blue: UInt8((x / 4 + y / 3) % 2 == 0 ? 40 : 200))
        }
        return try directory.write(picture.encoded(as: .jpeg, options: SaveOptions(quality: 92, chroma: .c422)), to: "odd.jpg")
    }

    static func facts(_ path: String) throws -> CodingFacts {
        try CodingFacts.read([UInt8](Data(contentsOf: URL(fileURLWithPath: path))), format: .jpeg)
    }

    static func notes(_ result: CommandRunner.Result) throws -> [[String: Any]] {
        let line = try #require(result.standardOutput.split(separator: "\n").first, "\(result.standardError)")
        let file = try #require(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        return try #require(file["notes"] as? [[String: Any]])
    }

    /// The turn cannot be exact, so the picture is encoded anew: at the input's quality and
    /// chroma subsampling (not the defaults, 80 and 4:2:0), with a warning that says why, in the
    /// run's notes too. A run that makes new pixels is encoded at the defaults.
    @Test func aTurnThatCannotBeExactKeepsTheInputsQualityAndChroma() throws {
        let directory = try TemporaryDirectory()
        let odd = try Self.oddJPEG(in: directory)
        #expect(try Self.facts(odd).jpegQuality == 92 && Self.facts(odd).chroma == "4:2:2")
        let turned = directory.file("turned.jpg")
        let result = try CommandRunner.run(["run", "-e", "rotate 90", odd, "-o", turned, "--json"])
        #expect(result.status == 0, "\(result.standardError)")
        let facts = try Self.facts(turned)
        #expect(facts.jpegQuality == 92 && facts.chroma == "4:2:2", "quality \(String(describing: facts.jpegQuality)), \(facts.chroma ?? "no chroma")")
        #expect(try Self.pixels(turned).size == Size(141, 203))
        // The warning names the side that is not whole blocks, and the settings.
        let reason = "a 4:2:2 JPEG turns 90\u{b0} losslessly only when its height is a multiple of 8 (this one is 141 high)"
        #expect(result.standardError.contains("warning: \(turned): not lossless: \(reason)"), "\(result.standardError)")
        #expect(result.standardError.contains("quality 92 and chroma 4:2:2"), "\(result.standardError)")
        let note = try #require(try Self.notes(result).first)
        #expect(note["stageName"] as? String == "save" && note["name"] as? String == "warning", "\(note)")
        let value = try #require(note["value"] as? [String: Any])
        #expect(value["reason"] as? String == reason && value["quality"] as? Double == 92 && value["chroma"] as? String == "4:2:2", "\(value)")

        // Never lossless: the same settings kept, told in a note rather than a warning.
        let anew = directory.file("anew.jpg")
        let never = try CommandRunner.run(["run", "-e", "rotate 90 | save lossless=false", odd, "-o", anew, "--json"])
        #expect(never.status == 0 && !never.standardError.contains("warning"), "\(never.standardError)")
        #expect(try Self.facts(anew).jpegQuality == 92 && Self.facts(anew).chroma == "4:2:2")
        #expect(try Self.notes(never).first?["name"] as? String == "encoding")
        // A setting given is used, the other kept; new pixels get the defaults.
        for (stages, quality, chroma) in [("rotate 90 | save quality=70", 70, "4:2:2"), ("rotate 90 | save chroma=444", 92, "4:4:4"),
                                          ("resize 100", 80, "4:2:0"), ("rotate 90 | blur 1", 80, "4:2:0")] {
            let out = directory.file("out.jpg")
            let run = try CommandRunner.run(["run", "-e", stages, odd, "-o", out])
            #expect(run.status == 0 && !run.standardError.contains("not lossless"), "\(stages): \(run.standardError)")
            #expect(try Self.facts(out).jpegQuality == quality && Self.facts(out).chroma == chroma, "\(stages)")
        }
        // lossless=true still refuses it.
        let required = try CommandRunner.run(["run", "-e", "rotate 90 | save lossless=true", odd, "-o", directory.file("required.jpg")])
        #expect(required.status == 1 && required.standardError.contains("lossless=true: \(reason)"), "\(required.standardError)")
        #expect(!FileManager.default.fileExists(atPath: directory.file("required.jpg")))
    }

    /// `lossless=trim` drops the partial blocks a turn would bring to the left or top, as
    /// `jpegtran -trim` does: the same size and the same pixels, and the notes count what went.
    @Test(arguments: [
        ("rotate 90", ["-rotate", "90"], Size(136, 203)),
        ("rotate 180", ["-rotate", "180"], Size(192, 136)),
        ("rotate 270", ["-rotate", "270"], Size(141, 192)),
        ("flip", ["-flip", "vertical"], Size(203, 136)),
        ("flop", ["-flip", "horizontal"], Size(192, 141)),
        ("rotate 90 | flop", ["-transpose"], Size(141, 203)),
        ("flop | rotate 90", ["-transverse"], Size(136, 192)),
    ])
    func trimDoesWhatJpegtranTrimDoes(stages: String, jpegtran arguments: [String], size: Size) throws {
        let directory = try TemporaryDirectory()
        let odd = try Self.oddJPEG(in: directory)
        let ours = directory.file("ours.jpg"), theirs = directory.file("theirs.jpg")
        let result = try CommandRunner.run(["run", "-e", stages + " | save lossless=trim", odd, "-o", ours, "--json"])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(try Self.jpegtran(["-trim"] + arguments, odd, theirs) == 0)
        let (a, b) = (try Self.pixels(ours), try Self.pixels(theirs))
        #expect(a.size == size && b.size == size, "\(stages): \(a.size), jpegtran \(b.size)")
        #expect(try PictureComparison(a, b).identical, "\(stages): the same coefficients as jpegtran -trim's")
        // Not a second encoding: the input's own tables.
        #expect(try Self.facts(ours).jpegQuality == 92)
        let notes = try Self.notes(result)
        if size == Size(141, 203) {
            #expect(notes.isEmpty, "\(notes)")
        } else {
            let note = try #require(notes.first)
            #expect(note["name"] as? String == "trimmed", "\(note)")
            let value = try #require(note["value"] as? [String: Any])
            #expect(value["width"] as? Double == Double(size.width) && value["height"] as? Double == Double(size.height), "\(value)")
            #expect((note["text"] as? String)?.contains("\(size) written") == true, "\(note)")
        }
    }

    /// A crop off the block grid with `lossless=trim`: its corner moves right and down to the
    /// next block (16 across, 8 down at 4:2:2), its far edges stay; the pixels are those of the
    /// exact crop jpegtran makes there.
    @Test func trimMovesACropsCornerInToTheBlockGrid() throws {
        let directory = try TemporaryDirectory()
        let odd = try Self.oddJPEG(in: directory)
        let ours = directory.file("ours.jpg"), theirs = directory.file("theirs.jpg")
        let result = try CommandRunner.run(["run", "-e", "crop 3,5,100x100 | save lossless=trim", odd, "-o", ours, "--json"])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(try Self.jpegtran(["-crop", "87x97+16+8"], odd, theirs) == 0)
        let (a, b) = (try Self.pixels(ours), try Self.pixels(theirs))
        #expect(a.size == Size(87, 97))
        #expect(try PictureComparison(a, b).identical)
        let text = try #require(try Self.notes(result).first?["text"] as? String)
        #expect(text.contains("13 columns at the left and 3 rows at the top") && text.contains("87x97 written, not 100x100"), "\(text)")
        // Trim is for JPEG output, and a crop too small to hold a whole block leaves nothing.
        let webp = try CommandRunner.run(["run", "-e", "rotate 90 | save lossless=trim", odd, "-o", directory.file("out.webp")])
        #expect(webp.status != 0 && webp.standardError.contains("lossless=trim is for a JPEG"), "\(webp.standardError)")
        let tiny = try CommandRunner.run(["run", "-e", "crop 1,1,10x4 | save lossless=trim", odd, "-o", directory.file("tiny.jpg")])
        #expect(tiny.status == 1 && tiny.standardError.contains("trimming leaves nothing"), "\(tiny.standardError)")
    }

    @Test func explainSaysLossless() throws {
        let explained = try CommandRunner.run(["explain", "-e", "rotate 90 | crop 0,0,800x640", Self.photo, "-o", "x.jpg"])
        #expect(explained.standardOutput.contains("lossless: not decoded; its DCT coefficients are moved (rotate 90, crop 0,0,800x640)"), "\(explained.standardOutput)")
        let anew = try CommandRunner.run(["explain", "-e", "rotate 90 | save lossless=false", Self.photo, "-o", "x.jpg"])
        #expect(!anew.standardOutput.contains("lossless: not decoded"))
    }

    /// A progressive JPEG of more scans than the decoder reads (500) is refused before its first
    /// scan is read, as the decoding run refuses it, with `lossless=true` or without.
    @Test func aScanBombIsRefusedBeforeReading() throws {
        let directory = try TemporaryDirectory()
        let progressive = directory.file("progressive.jpg")
        #expect(try CommandRunner.runProgram("/usr/bin/jpegtran", ["-progressive", "-outfile", progressive, Self.photo]).status == 0)
        // The last scan repeated 600 times before the end: a file of ~610 scans.
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: progressive)))
        let lastScan = try #require((0..<(bytes.count - 1)).last { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xDA })
        let scan = Array(bytes[lastScan..<(bytes.count - 2)])
        bytes = Array(bytes[..<(bytes.count - 2)]) + Array([[UInt8]](repeating: scan, count: 600).joined()) + [0xFF, 0xD9]
        _ = try directory.write(bytes, to: "bomb.jpg")
        for lossless in ["true", "auto"] {
            let result = try CommandRunner.run(["run", "-e", "rotate 90 | save lossless=\(lossless)", "bomb.jpg", "-o", "out.jpg"], in: directory.path)
            #expect(result.status == 1, "\(result.standardError)")
            #expect(result.standardError.contains("more than 500 scans"), "\(result.standardError)")
            #expect(!FileManager.default.fileExists(atPath: directory.file("out.jpg")))
        }
    }

    /// The lossless run's coefficients count in what `--max-memory` reserves: two copies of every
    /// block for a turn (the file's and the turned), one for a copy; past the budget, refused.
    @Test func theCoefficientsCountInTheMemoryEstimate() throws {
        let directory = try TemporaryDirectory()
        _ = try directory.write(Synthetic.gradient(2048, 2048).encoded(as: .png), to: "in.png")
        let made = try CommandRunner.run(["run", "-e", "save chroma=444", "in.png", "-o", "big.jpg"], in: directory.path)
        #expect(made.status == 0, "\(made.standardError)")
        // 256 × 256 blocks in each of three components, 128 bytes a block.
        let coefficients = 256 * 256 * 3 * 128
        let explain = try CommandRunner.run(["explain", "-e", "rotate 90", "big.jpg", "-o", "out.jpg", "--json"], in: directory.path)
        let plan = try #require(JSONSerialization.jsonObject(with: Data(explain.outputBytes)) as? [String: Any], "\(explain.standardError)")
        let estimate = try #require(plan["estimatedPeakBytes"] as? Double)
        #expect(estimate >= Double(2 * coefficients), "\(estimate)")
        let refused = try CommandRunner.run(["run", "-e", "rotate 90", "big.jpg", "-o", "out.jpg", "--max-memory", "40M"], in: directory.path)
        #expect(refused.status != 0 && refused.standardError.contains("--max-memory"), "\(refused.standardError)")
        let allowed = try CommandRunner.run(["run", "-e", "rotate 90", "big.jpg", "-o", "out.jpg", "--max-memory", "200M"], in: directory.path)
        #expect(allowed.status == 0, "\(allowed.standardError)")
        // Encoded anew, it keeps the input's 4:4:4, whose Huffman tables hold twice 4:2:0's
        // coefficients: the estimate, made before the tables are read, counts the most.
        func peak(_ save: String) throws -> Double {
            let explain = try CommandRunner.run(["explain", "-e", "rotate 90 | " + save, "big.jpg", "-o", "out.jpg", "--json"], in: directory.path)
            let plan = try #require(JSONSerialization.jsonObject(with: Data(explain.outputBytes)) as? [String: Any], "\(explain.standardError)")
            return try #require(plan["estimatedPeakBytes"] as? Double)
        }
        let kept = try peak("save lossless=false")
        #expect(try kept == peak("save lossless=false chroma=444") && kept > peak("save lossless=false chroma=420"), "\(kept)")
    }
}
