import Foundation
import Testing
import ImagePipe
import TestSupport

/// `imagepipe compare`: its figures against an independent implementation (the benchmarks'
/// NumPy PSNR and SSIM, Benchmarks/quality.py), its exit status for scripts, and its picture of
/// the differences.
@Suite struct CompareCommandTests {
    static let benchmarks = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Benchmarks").path

    /// A gradient with texture, and the same with a blurred patch and a few changed pixels.
    static func pair(alpha: Bool = false) throws -> (Image, Image) {
        let a = try Synthetic.image(61, 47, alpha: alpha) { x, y in
            Color(red: UInt8((x * 4 + y) % 256), green: UInt8((x * y) % 251), blue: UInt8(255 - y * 5), alpha: alpha ? UInt8(128 + x) : 255)
        }
        let b = try Synthetic.image(61, 47, alpha: alpha) { x, y in
            let original = a.pixel(x: x, y: y)
            if (10..<30).contains(x) && (5..<25).contains(y) {
                let left = a.pixel(x: x - 1, y: y)
                return Color(red: UInt8((Int(original.red) + Int(left.red)) / 2), green: UInt8((Int(original.green) + Int(left.green)) / 2),
                             blue: original.blue, alpha: original.alpha)
            }
            if x == 50 && y == 40 { return Color(red: 0, green: 255, blue: 0, alpha: original.alpha) }
            return original
        }
        return (a, b)
    }

    static func compare(_ arguments: [String], in directory: TemporaryDirectory) throws -> (status: Int32, json: JSONValue?, error: String) {
        let result = try CommandRunner.run(["compare"] + arguments + ["--json"], in: directory.path)
        return (result.status, JSONValue.parse(result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)), result.standardError)
    }

    @Test(arguments: [false, true])
    func agreesWithAnIndependentImplementation(alpha: Bool) throws {
        let directory = try TemporaryDirectory()
        let (a, b) = try Self.pair(alpha: alpha)
        _ = try directory.write(a.encoded(as: .png), to: "a.png")
        _ = try directory.write(b.encoded(as: .png), to: "b.png")
        let (status, json, error) = try Self.compare(["a.png", "b.png"], in: directory)
        #expect(status == 0, "\(error)")
        let mode = alpha ? "RGBA" : "RGB"
        try ColorReference.python("""
            import sys, json, numpy as np
            sys.path.insert(0, \(String(reflecting: Self.benchmarks)))
            import quality
            from PIL import Image
            a = np.asarray(Image.open('\(directory.file("a.png"))').convert('\(mode)'), np.float64)
            b = np.asarray(Image.open('\(directory.file("b.png"))').convert('\(mode)'), np.float64)
            d = np.abs(a - b)
            json.dump({"psnr": quality.psnr(a, b), "ssim": quality.ssim(a, b), "max": float(d.max()), "mean": float(d.mean()),
                       "pixels": int((d > 0).any(axis=2).sum())}, open('\(directory.file("reference.json"))', 'w'))
            """)
        let reference = try #require(JSONValue.parse(String(contentsOfFile: directory.file("reference.json"), encoding: .utf8)))
        let channels = alpha ? 4.0 : 3.0
        #expect(json?["channels"]?.numberValue == channels)
        for (ours, theirs, tolerance) in [("psnr", "psnr", 1e-9), ("ssim", "ssim", 1e-9), ("maxDifference", "max", 0), ("meanDifference", "mean", 1e-12),
                                          ("differingPixels", "pixels", 0)] {
            let value = try #require(json?[ours]?.numberValue, "\(ours)"), expected = try #require(reference[theirs]?.numberValue)
            #expect(abs(value - expected) <= tolerance * max(1, abs(expected)), "\(ours): \(value) against \(expected)")
        }
        #expect((json?["ssim"]?.numberValue ?? 1) < 1 && (json?["psnr"]?.numberValue ?? 99) < 40, "the blurred patch is seen")
    }

    @Test func exitStatusForScripts() throws {
        let directory = try TemporaryDirectory()
        let (a, b) = try Self.pair()
        _ = try directory.write(a.encoded(as: .png), to: "a.png")
        _ = try directory.write(b.encoded(as: .png), to: "b.png")
        _ = try directory.write(a.encoded(as: .png), to: "a-again.png")
        let same = try Self.compare(["a.png", "a-again.png"], in: directory)
        #expect(same.status == 0 && same.json?["identical"] == .bool(true) && same.json?["psnr"] == .null && same.json?["ssim"]?.numberValue == 1)
        let psnr = try #require(try Self.compare(["a.png", "b.png"], in: directory).json?["psnr"]?.numberValue)
        #expect(try Self.compare(["a.png", "b.png", "--fail-below", "\(psnr - 0.5)"], in: directory).status == 0)
        #expect(try Self.compare(["a.png", "b.png", "--fail-below", "\(psnr + 0.5)"], in: directory).status == 1)
        #expect(try Self.compare(["a.png", "a-again.png", "--fail-below", "1000"], in: directory).status == 0, "the same pictures pass any floor")
        // Not compared: sizes that differ, a file that is no picture, usage errors.
        _ = try directory.write(Synthetic.gradient(8, 8).encoded(as: .png), to: "small.png")
        let sizes = try Self.compare(["a.png", "small.png"], in: directory)
        #expect(sizes.status == 2 && sizes.error.contains("the pictures are 61x47 and 8x8; compare needs two pictures of one size"), "\(sizes.error)")
        _ = try directory.write("not a picture", to: "text.png")
        #expect(try Self.compare(["a.png", "text.png"], in: directory).status == 2)
        #expect(try Self.compare(["a.png"], in: directory).status == 2)
        #expect(try Self.compare(["a.png", "b.png", "--fuzz", "256"], in: directory).status == 2)
        #expect(try Self.compare(["a.png", "b.png", "--fail-below", "0x10"], in: directory).status == 2)
        // A picture too small for SSIM's window still gets the other figures.
        _ = try directory.write(Synthetic.gradient(8, 8).encoded(as: .png), to: "small-again.png")
        let tiny = try Self.compare(["small.png", "small-again.png"], in: directory)
        #expect(tiny.status == 0 && tiny.json?["ssim"] == .null && tiny.json?["identical"] == .bool(true))
    }

    @Test func theDifferencePictureMarksWhatDiffers() throws {
        let directory = try TemporaryDirectory()
        let (a, b) = try Self.pair()
        _ = try directory.write(a.encoded(as: .png), to: "a.png")
        _ = try directory.write(b.encoded(as: .png), to: "b.png")
        let result = try Self.compare(["a.png", "b.png", "--diff", "diff.png", "--fuzz", "3"], in: directory)
        #expect(result.status == 0, "\(result.error)")
        let diff = try Image.load(path: directory.file("diff.png"))
        #expect(diff.size == a.size)
        let red = Color(red: 255, green: 0, blue: 0)
        #expect(diff.pixel(x: 50, y: 40) == red, "the changed pixel")
        #expect(diff.pixel(x: 5, y: 5) != red && diff.pixel(x: 5, y: 5).red == diff.pixel(x: 5, y: 5).blue, "unchanged: faded gray")
        #expect(diff.pixel(x: 5, y: 5).red >= 255 - 255 * 3 / 10, "faded toward white")
        // Red exactly where some channel is more than the fuzz apart.
        var marked = 0, expected = 0
        for y in 0..<a.height {
            for x in 0..<a.width {
                let (p, q) = (a.pixel(x: x, y: y), b.pixel(x: x, y: y))
                let apart = max(abs(Int(p.red) - Int(q.red)), abs(Int(p.green) - Int(q.green)), abs(Int(p.blue) - Int(q.blue))) > 3
                if apart { expected += 1 }
                if diff.pixel(x: x, y: y) == red { marked += 1 }
                #expect((diff.pixel(x: x, y: y) == red) == apart, "\(x),\(y)")
            }
        }
        #expect(marked == expected && result.json?["differingPixels"]?.numberValue == Double(expected))
        // The picture is never written over one of those compared.
        let over = try Self.compare(["a.png", "b.png", "--diff", "b.png"], in: directory)
        #expect(over.status == 2 && over.error.contains("--diff 'b.png' is one of the pictures compared"))
        #expect(try Image.load(path: directory.file("b.png")).pixel(x: 50, y: 40) == b.pixel(x: 50, y: 40))
    }
}
