import Foundation
import ImagePipe
import Testing
import TestSupport

/// The opt-in formats are read in a process of their own under memory and CPU limits: a
/// loader that crashes or blows up fails its file alone, and what it decodes is what an
/// in-process decode gives.
@Suite struct IsolatedDecodeTests {
    /// A 30x20 TGA of one color, as Pillow writes it.
    static func tga(in directory: TemporaryDirectory, name: String = "a.tga") throws -> String {
        let path = directory.file(name)
        try ColorReference.python("from PIL import Image; Image.new('RGB', (30, 20), (200, 10, 40)).save('\(path)')")
        return path
    }

    @Test func anOptInFormatDecodesInItsOwnProcessAsItWouldHere() throws {
        let directory = try TemporaryDirectory()
        let path = try Self.tga(in: directory)
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        var here = LoadOptions(allowedFormats: ImageFormat.vetted.union([.tga]))
        let local = try Image.decode(bytes, options: here)
        here.isolatedDecoder = [CommandRunner.binary, IsolatedDecoder.childCommand]
        let apart = try Image.decode(bytes, options: here)
        #expect(apart.size == local.size && apart.pixel(x: 3, y: 4) == local.pixel(x: 3, y: 4) && apart.pixel(x: 3, y: 4) == Color(red: 200, green: 10, blue: 40))
        #expect(try ImageHeader.read(bytes: bytes, options: here).storedSize == Size(30, 20))
    }

    /// A reader that dies of a signal is reported as such, and the caller lives on.
    @Test func aCrashingReaderFailsItsFileOnly() throws {
        let directory = try TemporaryDirectory()
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Self.tga(in: directory))))
        var options = LoadOptions(allowedFormats: ImageFormat.vetted.union([.tga]))
        options.isolatedDecoder = ["/bin/sh", "-c", "kill -SEGV $$"]
        do {
            _ = try Image.decode(bytes, options: options)
            Issue.record("decoded through a reader that crashed")
        } catch let error as ImageError {
            #expect(error.reason.contains("the TGA reader crashed (signal 11) on it"), "\(error)")
        }
    }

    /// The child's address-space limit holds: an SVG that renders at 20000x20000 (1.6 GB of
    /// pixels) under a 600 MB limit ends in a failure, not in the memory.
    @Test(.disabled(if: CommandRunner.binary.contains("/.build/tsan/"), "a sanitizer's shadow memory needs an unlimited address space"))
    func theReadersMemoryLimitHolds() throws {
        let directory = try TemporaryDirectory()
        let svg = #"<svg xmlns="http://www.w3.org/2000/svg" width="20000" height="20000"><rect width="20000" height="20000" fill="red"/></svg>"#
        let path = try directory.write(svg, to: "big.svg")
        let result = try PeakMemory.run(["__decode", "svg", "decode", "0", "1", String(600 << 20), "60"], in: directory.path, input: path)
        #expect(result.status != 0, "the 1.6 GB render succeeded under a 600 MB limit")
        #expect(result.peakBytes < 600 << 20, "peaked at \(result.peakBytes) bytes")
    }

    /// In a batch the other pictures go on past a file its reader refuses, and a cut binary PNM
    /// (which the loader fills with black) is refused as truncated.
    @Test func aBatchGoesOnAndCutPNMIsRefused() throws {
        let directory = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: directory.file("in"), withIntermediateDirectories: true)
        _ = try Self.tga(in: directory, name: "in/a.tga")
        let noise = (0..<2000).map { UInt8(truncatingIfNeeded: $0 &* 7919 &+ 13) }
        _ = try directory.write(noise, to: "in/b.tga")
        let ppm = directory.file("in/c.ppm")
        try ColorReference.python("from PIL import Image; Image.new('RGB', (30, 20), (10, 200, 40)).save('\(ppm)')")
        let whole = try [UInt8](Data(contentsOf: URL(fileURLWithPath: ppm)))
        _ = try directory.write(Array(whole.prefix(whole.count / 2)), to: "in/d.ppm")
        let result = try CommandRunner.run(["run", "-e", "grayscale", "in", "--out-dir", "out", "-o", "{stem}.png",
                                            "--allow-format", "tga,pnm"], in: directory.path)
        #expect(result.status == 1, "\(result.standardError)")
        #expect(result.standardError.contains("d.ppm: corrupt image: the PNM data is truncated"), "\(result.standardError)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.file("out")).sorted() == ["a.png", "c.png"])
    }
}
