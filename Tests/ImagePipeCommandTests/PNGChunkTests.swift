import Foundation
import ImagePipe
import Testing
import TestSupport

/// PNG chunks made to cost: a huge text chunk before the pixels, a first chunk claiming a
/// gigabyte. The header is IHDR alone, read from the first 33 bytes; the text chunks never reach
/// the loader.
@Suite struct PNGChunkTests {
    static func bigText(in directory: TemporaryDirectory) throws -> String {
        let plain = try Synthetic.gradient(40, 30).encoded(as: .png)
        let text = Synthetic.pngChunk("tEXt", Array("Comment\0".utf8) + [UInt8](repeating: 0x41, count: 40 << 20))
        return try directory.write(Synthetic.png(plain, inserting: text), to: "text.png")
    }

    /// `explain` reads the header and stops; `run` decodes without holding the text: both stay
    /// far below the 40 MB chunk in memory (gdk-pixbuf's loader held several copies of it).
    @Test(.disabled(if: CommandRunner.binary.contains("/.build/tsan/"), "ThreadSanitizer's shadow memory inflates the peaks"))
    func aHugeTextChunkCostsNeitherTimeNorMemory() throws {
        let directory = try TemporaryDirectory()
        let path = try Self.bigText(in: directory)
        let explain = try PeakMemory.run(["explain", "-e", "grayscale", path], in: directory.path)
        #expect(explain.status == 0, "\(explain.standardError)")
        #expect(explain.peakBytes < 40 << 20, "explain peaked at \(explain.peakBytes) bytes")
        let run = try PeakMemory.run(["run", "-e", "grayscale", path, "-o", directory.file("out.png")], in: directory.path)
        #expect(run.status == 0, "\(run.standardError)")
        #expect(run.peakBytes < 80 << 20, "run peaked at \(run.peakBytes) bytes")
        let out = try Image.load(path: directory.file("out.png"))
        #expect(out.size == Size(40, 30))
    }

    @Test(arguments: [
        ([0x40, 0, 0, 0] + Array("IHDR".utf8), "its IHDR chunk claims 1073741824 bytes, where it has 13"),
        ([0x40, 0, 0, 0] + Array("tEXt".utf8), "its first chunk is 'tEXt', claiming 1073741824 bytes, where IHDR must come first"),
    ] as [([UInt8], String)])
    func aWrongFirstChunkIsNamedWithItsLength(chunkStart: [UInt8], reason: String) throws {
        let directory = try TemporaryDirectory()
        let plain = try Synthetic.gradient(8, 8).encoded(as: .png)
        let path = try directory.write(Array(plain[0..<8]) + chunkStart + Array(plain[16...]), to: "bad.png")
        for arguments in [["info", path], ["explain", "-e", "grayscale", path]] {
            let result = try CommandRunner.run(arguments)
            #expect(result.status != 0 && result.standardError.contains(reason), "\(arguments[0]): \(result.standardError)")
        }
    }

    /// The XMP packet of an iTXt chunk is still read (from the data, not from the loader).
    @Test func xmpInITXtIsStillKept() throws {
        let directory = try TemporaryDirectory()
        let xmp = Array(MetadataKeepTests.xmp.utf8)
        let chunk = Synthetic.pngChunk("iTXt", Array("XML:com.adobe.xmp".utf8) + [0, 0, 0, 0, 0] + xmp)
        let path = try directory.write(Synthetic.png(try Synthetic.gradient(8, 8).encoded(as: .png), inserting: chunk), to: "xmp.png")
        let result = try CommandRunner.run(["run", "-e", "save keep=xmp", path, "-o", directory.file("out.png")])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(try ExifTool.tags(directory.file("out.png"))["XMP:CreatorTool"]?.stringValue == "ImagePipe test")
    }
}
