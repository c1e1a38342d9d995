import Foundation
import Testing
import ImagePipe
import TestSupport

/// A corpus of broken pictures made from a real photo: each gives exit status 1 and one line
/// naming the file and the reason, leaves no output, and in a batch the good files still come out.
@Suite struct BadImageTests {
    static let photo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Samples/images/leaf.jpg").path

    /// name → bytes of every broken picture.
    static func corpus() throws -> [(String, [UInt8])] {
        let jpeg = try [UInt8](Data(contentsOf: URL(fileURLWithPath: photo)))
        let png = try Image.load(path: photo).scaled(to: Size(160, 100)).encoded(as: .png)
        var random = SeededGenerator(seed: 99)
        func flipped(_ bytes: [UInt8], at offset: Int) -> [UInt8] {
            var copy = bytes
            copy[offset] ^= 0x5A
            return copy
        }
        let small = try Image.load(path: photo).scaled(to: Size(160, 100))
        // Every other allowed format, cut: each loader returns a partly black or grey picture
        // without an error; ImagePipe checks the length each header states (or the end marker).
        var cut: [(String, [UInt8])] = []
        for format in [ImageFormat.gif, .webp, .bmp, .tiff, .avif] {
            let bytes = try small.encoded(as: format)
            cut.append(("cut.\(format.rawValue)", Array(bytes.prefix(bytes.count / 2))))
            cut.append(("cut-near-end.\(format.rawValue)", Array(bytes.prefix(bytes.count - 9))))
        }
        // GIF data with LZW codes that were never defined (gdk-pixbuf decodes them to a picture).
        let gif = try small.encoded(as: .gif)
        cut.append(("flipped-data.gif", stride(from: gif.count / 2, to: gif.count / 2 + 40, by: 7).reduce(gif) { flipped($0, at: $1) }))
        // A CMYK JPEG (Pillow writes them as Photoshop does), cut and with damaged data.
        // A name of its own per call: the suite's tests build this corpus at the same time.
        let cmykPath = NSTemporaryDirectory() + "imagepipe-bad-cmyk-\(UUID().uuidString).jpg"
        defer { try? FileManager.default.removeItem(atPath: cmykPath) }
        try ColorReference.python("""
            from PIL import Image
            Image.open('\(photo)').convert('CMYK').resize((160, 100)).save('\(cmykPath)', quality=90)
            """)
        let cmyk = try [UInt8](Data(contentsOf: URL(fileURLWithPath: cmykPath)))
        cut.append(("cut-cmyk.jpg", Array(cmyk.prefix(cmyk.count * 6 / 10))))
        cut.append(("flipped-data-cmyk.jpg", stride(from: cmyk.count / 2, to: cmyk.count / 2 + 40, by: 7).reduce(cmyk) { flipped($0, at: $1) }))
        // The IDAT chunk's data, where a flipped byte breaks the chunk's CRC.
        let idat = (0..<png.count - 4).first { Array(png[$0..<$0 + 4]) == Array("IDAT".utf8) }! + 20
        return [
            ("cut-at-1k.jpg", Array(jpeg.prefix(1024))),
            ("cut-at-half.jpg", Array(jpeg.prefix(jpeg.count / 2))),
            ("cut-near-end.jpg", Array(jpeg.prefix(jpeg.count - 2))),
            ("flipped-marker.jpg", flipped(jpeg, at: 1)),
            ("flipped-header.jpg", flipped(jpeg, at: 160)),
            ("flipped-data.jpg", stride(from: jpeg.count / 2, to: jpeg.count / 2 + 40, by: 7).reduce(jpeg) { flipped($0, at: $1) }),
            ("empty.jpg", []),
            ("text.jpg", Array("Dear diary, today I took a photo.\n".utf8)),
            ("random.png", (0..<4096).map { _ in UInt8.random(in: 0...255, using: &random) }),
            ("cut.png", Array(png.prefix(png.count / 2))),
            ("bad-crc.png", flipped(png, at: idat)),
            ("flipped-header.png", flipped(png, at: 18)),
            // A format gdk-pixbuf has no loader for: the start of an AVIF file.
            ("picture.avif", [0, 0, 0, 0x1C] + Array("ftypavif".utf8) + [0, 0, 0, 0] + Array("avifmif1miaf".utf8) + [UInt8](repeating: 0, count: 64)),
        ] + cut
    }

    @Test func eachBrokenPictureFailsCleanly() throws {
        let directory = try TemporaryDirectory()
        for (name, bytes) in try Self.corpus() {
            _ = try directory.write(bytes, to: name)
            let result = try CommandRunner.run(["run", "-e", "fit 64x64", name, "-o", "out-\(name).png"], in: directory.path)
            #expect(result.status == 1, "\(name): \(result.standardError)")
            #expect(result.standardError.hasPrefix("imagepipe: \(name): "), "\(name): \(result.standardError)")
            #expect(result.standardError.split(separator: "\n").count == 1, "\(name): \(result.standardError)")
            #expect(!FileManager.default.fileExists(atPath: directory.file("out-\(name).png")), "\(name) left an output")
        }
        #expect(try directory.contents().allSatisfy { !$0.contains("imagepipe-") }, "no temporary files left")
    }

    @Test func failFalseTakesWhatTheDecoderMakesOfDamagedData() throws {
        let directory = try TemporaryDirectory()
        let corpus = try Self.corpus()
        for name in ["cut-at-half.jpg", "flipped-data.jpg", "cut.png"] {
            _ = try directory.write(corpus.first { $0.0 == name }!.1, to: name)
            let lenient = try CommandRunner.run(["run", "-e", "load fail=false | fit 64x64", name, "-o", "out-\(name).png"], in: directory.path)
            #expect(lenient.status == 0, "\(name): \(lenient.standardError)")
            #expect(try Image.load(path: directory.file("out-\(name).png")).width == 64)
        }
    }

    /// A progressive JPEG cut in half: gdk-pixbuf's loader stops with "Improper call to JPEG
    /// library in state 205"; libvips' fail=false and Pillow decode the scans that are there.
    @Test func failFalseDecodesACutProgressiveJPEG() throws {
        let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/progressive.jpg").path
        let whole = try [UInt8](Data(contentsOf: URL(fileURLWithPath: fixture)))
        let directory = try TemporaryDirectory()
        _ = try directory.write(Array(whole.prefix(whole.count / 2)), to: "cut.jpg")
        let strict = try CommandRunner.run(["run", "-e", "load | fit 64x64", "cut.jpg", "-o", "strict.png"], in: directory.path)
        #expect(strict.status == 1, "fail=true still refuses it")
        let lenient = try CommandRunner.run(["run", "-e", "load fail=false", "cut.jpg", "-o", "lenient.png"], in: directory.path)
        #expect(lenient.status == 0, "\(lenient.standardError)")
        let cut = try Image.load(path: directory.file("lenient.png")), full = try Image.load(path: fixture)
        #expect(cut.size == Size(320, 200))
        // The first scans hold the whole picture coarsely: close to the full decode everywhere.
        var total = 0
        for y in stride(from: 0, to: 200, by: 10) {
            for x in stride(from: 0, to: 320, by: 10) {
                let a = cut.pixel(x: x, y: y), b = full.pixel(x: x, y: y)
                total += abs(Int(a.red) - Int(b.red)) + abs(Int(a.green) - Int(b.green)) + abs(Int(a.blue) - Int(b.blue))
            }
        }
        #expect(Double(total) / (20 * 32 * 3) < 12, "mean difference per channel")
    }

    @Test func inABatchTheGoodFilesStillComeOut() throws {
        let directory = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: directory.file("in"), withIntermediateDirectories: true)
        let corpus = try Self.corpus()
        for (name, bytes) in corpus { _ = try directory.write(bytes, to: "in/" + name) }
        try FileManager.default.copyItem(atPath: Self.photo, toPath: directory.file("in/good.jpg"))
        let result = try CommandRunner.run(["run", "-e", "fit 64x64 | save {name}.png", "in", "--out-dir", "out", "-q"], in: directory.path)
        #expect(result.status == 1)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.file("out")) == ["good.jpg.png"])
        for (name, _) in corpus {
            #expect(result.standardError.contains("imagepipe: in/\(name): "), "\(name) not reported")
        }
        #expect(result.standardError.split(separator: "\n").count == corpus.count)
    }
}
