import Foundation
import ImagePipe
import Testing
import TestSupport

/// Metadata blocks crafted to break readers: APP2 ICC chunks numbered out of order (which made
/// gdk-pixbuf's JPEG loader write out of bounds and kill the process), profiles too large for a
/// JPEG, and EXIF or XMP blocks that are not what they claim, which `keep=` must not copy on.
@Suite struct HostileMetadataTests {
    /// One APP segment (`marker` 0xE1 = APP1, 0xE2 = APP2) holding `body`.
    static func segment(_ marker: UInt8, _ body: [UInt8]) -> [UInt8] {
        let length = body.count + 2
        return [0xFF, marker, UInt8(length >> 8), UInt8(length & 0xFF)] + body
    }

    /// A small JPEG with `segments` inserted after its start-of-image marker.
    static func jpeg(with segments: [UInt8]) throws -> [UInt8] {
        let plain = try Synthetic.gradient(16, 12).encoded(as: .jpeg)
        return Array(plain[0..<2]) + segments + Array(plain[2...])
    }

    /// APP2 ICC chunks whose (sequence, count) go (1,2), (2,2), (0,2), (1,2): a sequence number
    /// of 0 and a repeat, as in the 1,104-byte file that crashed every command reading it.
    static func misnumberedICC() throws -> [UInt8] {
        let chunks = [(1, 2), (2, 2), (0, 2), (1, 2)].flatMap { sequence, count in
            segment(0xE2, Array("ICC_PROFILE\0".utf8) + [UInt8(sequence), UInt8(count)] + [UInt8](repeating: 0x41, count: 180))
        }
        return try jpeg(with: chunks)
    }

    /// A WebP whose XMP chunk after the pixels is 40 MB: the metadata walk steps over it (a chunk
    /// above 16 MiB is no metadata anyone writes), so neither `explain` nor the streamed run
    /// holds it, and the picture comes out.
    @Test(.disabled(if: CommandRunner.binary.contains("/.build/tsan/"), "ThreadSanitizer's shadow memory inflates the peaks"))
    func aHugeWebPMetadataChunkIsPassedOver() throws {
        let directory = try TemporaryDirectory()
        var bytes = try Synthetic.gradient(40, 30).encoded(as: .webp)
        let size = 40 << 20
        bytes += Array("XMP ".utf8) + (0..<4).map { UInt8(truncatingIfNeeded: size >> (8 * $0)) } + [UInt8](repeating: 0x41, count: size)
        let riff = bytes.count - 8
        for index in 0..<4 { bytes[4 + index] = UInt8(truncatingIfNeeded: riff >> (8 * index)) }
        let path = try directory.write(bytes, to: "big-xmp.webp")
        let explain = try PeakMemory.run(["explain", "-e", "grayscale", path, "-o", directory.file("out.png")], in: directory.path)
        #expect(explain.status == 0 && explain.peakBytes < 40 << 20, "explain: \(explain.standardError), \(explain.peakBytes) bytes")
        let run = try PeakMemory.run(["run", "-e", "grayscale | save keep=xmp", path, "-o", directory.file("out.png")], in: directory.path)
        #expect(run.status == 0 && run.peakBytes < 80 << 20, "run: \(run.standardError), \(run.peakBytes) bytes")
        #expect(try Image.load(path: directory.file("out.png")).size == Size(40, 30))
    }

    @Test func misnumberedICCChunksNeitherCrashNorStopABatch() throws {
        let directory = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: directory.file("in"), withIntermediateDirectories: true)
        let good = try Synthetic.gradient(20, 10).encoded(as: .jpeg)
        _ = try directory.write(good, to: "in/a.jpg")
        let hostile = try directory.write(Self.misnumberedICC(), to: "in/b.jpg")
        _ = try directory.write(good, to: "in/c.jpg")

        let info = try CommandRunner.run(["info", hostile])
        #expect(info.status == 0, "\(info.standardError)")
        #expect(info.standardOutput.contains("JPEG 16x12"), "\(info.standardOutput)")
        // Chunks that do not number 1 to N are no profile, for info as for the decoder.
        #expect(info.standardOutput.contains("color profile: none"), "\(info.standardOutput)")

        let explain = try CommandRunner.run(["explain", "-e", "grayscale", hostile])
        #expect(explain.status == 0, "\(explain.standardError)")

        let run = try CommandRunner.run(["run", "-e", "grayscale", directory.file("in"), "--out-dir", directory.file("out")])
        #expect(run.status == 0, "\(run.standardError)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.file("out")).sorted() == ["a.png", "b.png", "c.png"]
                || FileManager.default.contentsOfDirectory(atPath: directory.file("out")).sorted() == ["a.jpg", "b.jpg", "c.jpg"])
    }

    /// A frame header (SOF) that is missing, empty or cut gives a clear refusal naming the JPEG.
    @Test(arguments: [
        ([0xFF, 0xD8, 0xFF, 0xDA, 0x00, 0x08] + [UInt8](repeating: 0, count: 40), "image data starts before the frame header"),
        ([0xFF, 0xD8, 0xFF, 0xC0, 0x00, 0x11, 0x08, 0x00, 0x00, 0x00, 0x10, 0x03] + [UInt8](repeating: 1, count: 9), "no height"),
        ([0xFF, 0xD8, 0xFF, 0xE1, 0x00, 0x01] + [UInt8](repeating: 0, count: 40), "fewer than its own length field"),
        ([0xFF, 0xD8, 0xFF, 0xE2, 0x40, 0x00] + [UInt8](repeating: 0, count: 40), "ends before its frame header"),
    ] as [([UInt8], String)])
    func brokenFrameHeadersAreRefusedByName(bytes: [UInt8], reason: String) throws {
        let directory = try TemporaryDirectory()
        let path = try directory.write(bytes, to: "broken.jpg")
        for arguments in [["info", path], ["explain", "-e", "grayscale", path], ["run", "-e", "grayscale", path, "-o", directory.file("out.png")]] {
            let result = try CommandRunner.run(arguments)
            #expect(result.status != 0 && result.standardError.contains(reason), "\(arguments[0]): \(result.standardError)")
        }
        #expect(!FileManager.default.fileExists(atPath: directory.file("out.png")))
    }

    /// The JPEG header walk passes over segments larger than one read (64 KiB) and still finds
    /// the size and the EXIF orientation behind them.
    @Test func theHeaderIsFoundBehindLargeSegments() throws {
        let comment = Self.segment(0xFE, [UInt8](repeating: 0x20, count: 65_000))
        let turned = Synthetic.withExifOrientation(try Self.jpeg(with: comment + comment), orientation: 6)
        let directory = try TemporaryDirectory()
        let path = try directory.write(turned, to: "turned.jpg")
        let info = try CommandRunner.run(["info", "--json", path])
        #expect(info.status == 0, "\(info.standardError)")
        let json = JSONValue.parse(info.standardOutput)
        #expect(json?["width"]?.numberValue == 16 && json?["height"]?.numberValue == 12 && json?["orientation"]?.numberValue == 6,
                "\(info.standardOutput)")
        #expect(try ImageHeader.read(path: path) == ImageHeader(storedSize: Size(16, 12), format: .jpeg, orientation: 6))
    }

    /// A PNG in Display P3 whose profile, with a private tag, is `profileBytes` long.
    static func p3PNG(profileBytes: Int, in directory: TemporaryDirectory) throws -> (path: String, profile: [UInt8]) {
        let profile = ColorReference.displayP3(privateTagBytes: profileBytes)
        let picture = try Synthetic.gradient(24, 16).withMetadata(ImageMetadata(iccProfile: profile))
        return (try directory.write(picture.encoded(as: .png), to: "p3.png"), profile)
    }

    /// A JPEG holds at most 255 APP2 chunks of profile (the count is one byte): a larger profile
    /// is refused by name rather than written with a wrapped count no reader can put together.
    /// A file read carries at most `ICCProfile.maxBytes` of profile, so only one given in code
    /// gets that far; read back from a file, one that large is dropped with a warning.
    @Test func aProfileTooLargeForAJPEGIsRefused() throws {
        let directory = try TemporaryDirectory()
        let profile = ColorReference.displayP3(privateTagBytes: 17_000_000)
        let picture = try Synthetic.gradient(24, 16).withMetadata(ImageMetadata(iccProfile: profile))
        do {
            _ = try picture.encoded(as: .jpeg)
            Issue.record("a 17 MB profile was written into a JPEG")
        } catch {
            #expect("\(error)".contains("ICC profile is 17") && "\(error)".contains("profile=srgb"), "\(error)")
        }
        // PNG holds it; read back, it is past the cap: dropped, the pixels taken as sRGB.
        let input = try directory.write(picture.encoded(as: .png), to: "p3.png")
        let png = try CommandRunner.run(["run", "-e", "load color=keep | save keep=all profile=keep", input, "-o", directory.file("out.png")])
        #expect(png.status == 0 && png.standardError.contains("p3.png: its ICC profile is larger than 4 MiB"), "\(png.standardError)")
        #expect(try ExifTool.profile(directory.file("out.png")) == nil)
    }

    /// A profile that fits in 255 chunks is written whole, and read back whole by a second reader.
    @Test func aLargeProfileThatFitsIsWrittenInChunks() throws {
        let directory = try TemporaryDirectory()
        let (input, expected) = try Self.p3PNG(profileBytes: 300_000, in: directory)
        let result = try CommandRunner.run(["run", "-e", "load color=keep | save keep=all profile=keep", input, "-o", directory.file("out.jpg")])
        #expect(result.status == 0, "\(result.standardError)")
        let profile = try ExifTool.profile(directory.file("out.jpg")) ?? []
        let same = profile == expected // compared apart: a failed #expect would print both arrays
        #expect(same, "\(profile.count) bytes read back of \(expected.count)")
    }

    static let goodXMP = MetadataKeepTests.xmp

    /// A JPEG with an EXIF block of `exif` and an XMP packet of `xmp`.
    static func jpeg(exif: [UInt8], xmp: [UInt8]) throws -> [UInt8] {
        try jpeg(with: segment(0xE1, Array("Exif\0\0".utf8) + exif) + segment(0xE1, Array("http://ns.adobe.com/xap/1.0/\0".utf8) + xmp))
    }

    /// Random bytes behind an `Exif` marker and HTML behind an XMP one are not carried into
    /// PNG, WebP or JPEG outputs: each is left out with a warning, and what does parse is kept.
    @Test(arguments: ["png", "webp", "jpg"])
    func blocksThatDoNotParseAreNotCopied(format: String) throws {
        var generator = SeededGenerator(seed: 7)
        let noise = (0..<4000).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let directory = try TemporaryDirectory()
        let hostile = try directory.write(Self.jpeg(exif: noise, xmp: Array("<script>alert(1)</script>".utf8)), to: "hostile.jpg")
        let result = try CommandRunner.run(["run", "-e", "save keep=all", hostile, "-o", directory.file("out.\(format)")])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardError.contains("EXIF block (4000 bytes) is not valid"), "\(result.standardError)")
        #expect(result.standardError.contains("XMP packet (25 bytes) is not well-formed"), "\(result.standardError)")
        let tags = try ExifTool.tags(directory.file("out.\(format)"))
        #expect(MetadataKeepTests.groups(tags, "EXIF").isEmpty && MetadataKeepTests.groups(tags, "XMP").isEmpty, "\(tags.keys.sorted())")

        // The same picture with a real EXIF block and XMP packet keeps both, without a warning.
        let exif = Array(Synthetic.withExifOrientation([0xFF, 0xD8, 0xFF, 0xD9], orientation: 1)[12..<38])
        let wellFormed = try directory.write(Self.jpeg(exif: exif, xmp: Array(Self.goodXMP.utf8)), to: "good.jpg")
        let kept = try CommandRunner.run(["run", "-e", "save keep=all", wellFormed, "-o", directory.file("kept.\(format)")])
        #expect(kept.status == 0 && !kept.standardError.contains("left out"), "\(kept.standardError)")
        let keptTags = try ExifTool.tags(directory.file("kept.\(format)"))
        #expect(keptTags["XMP:CreatorTool"]?.stringValue == "ImagePipe test" && keptTags["EXIF:Orientation"]?.numberValue == 1,
                "\(keptTags.keys.sorted())")
    }

    /// JPEG holds an EXIF block or an XMP packet in one 64 KiB segment: a larger one is left out
    /// with a warning (it was dropped without a word).
    @Test func blocksTooLargeForAJPEGAreLeftOutWithAWarning() throws {
        let directory = try TemporaryDirectory()
        let padding = String(repeating: " ", count: 70_000)
        let xmp = Self.goodXMP.replacingOccurrences(of: "<?xpacket end", with: padding + "<?xpacket end")
        let picture = try Synthetic.gradient(16, 12).withMetadata(ImageMetadata(xmp: Array(xmp.utf8)))
        let input = try directory.write(picture.encoded(as: .png, options: SaveOptions(keep: .xmp)), to: "big-xmp.png")
        let result = try CommandRunner.run(["run", "-e", "save keep=xmp", input, "-o", directory.file("out.jpg")])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardError.contains("a JPEG holds at most 65504 in one segment; left out"), "\(result.standardError)")
    }
}
