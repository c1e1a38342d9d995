import Foundation
import ImagePipe
import Testing
import TestSupport

/// What `save keep=exif` changes in the EXIF block it copies, as ExifTool reads the outputs: the
/// GPS position left out on request (`-gps`), the written size in ExifImageWidth/Height, no
/// thumbnail of the picture before the run; and which blocks are copied at all, as ExifTool
/// decides which it can read.
@Suite struct ExifEditingTests {
    /// The camera JPEG (40x20 stored, shown 20x40, GPS 48.1 N) with ExifImageWidth/Height and a
    /// thumbnail, written by ExifTool.
    static func cameraWithThumbnail(in directory: TemporaryDirectory) throws -> String {
        let (input, _) = try MetadataKeepTests.cameraJPEG(in: directory)
        let thumbnail = try directory.write(Synthetic.gradient(16, 8).encoded(as: .jpeg), to: "thumbnail.jpg")
        try ExifTool.write(input, ["-ExifImageWidth=40", "-ExifImageHeight=20", "-ThumbnailImage<=\(thumbnail)"])
        return input
    }

    /// The EXIF block of a file as ExifTool extracts it (TIFF-structured, without `Exif\0\0`).
    static func exifBytes(_ path: String) throws -> [UInt8] {
        try CommandRunner.runProgram(ExifTool.program, ["-b", "-EXIF", path]).outputBytes
    }

    @Test(arguments: ["keep=exif,-gps", "keep=-gps,exif", "keep=all,-gps", "keep=xmp,-gps,icc,exif"])
    func gpsIsLeftOutAndEverythingElseStays(keep: String) throws {
        let directory = try TemporaryDirectory()
        let input = try Self.cameraWithThumbnail(in: directory)
        // 48.1° is 48° 6′: the degrees' rational, 48/1, and the minutes' numerator, as ExifTool writes them.
        let latitude: [UInt8] = [0, 0, 0, 48, 0, 0, 0, 1, 0, 0, 0, 6]
        try #require(Self.exifBytes(input).contains(latitude), "the input holds the position")
        for format in ["jpg", "png", "webp"] {
            let output = directory.file("out.\(format)")
            let result = try CommandRunner.run(["run", "-e", "save \(keep)", input, "-o", output, "--overwrite"])
            try #require(result.status == 0, "\(keep): \(result.standardError)")
            let tags = try ExifTool.tags(output)
            #expect(tags.keys.filter { $0.contains("GPS") }.isEmpty, "\(format) \(keep): \(tags.keys.sorted())")
            #expect(tags["EXIF:Make"]?.stringValue == "ImagePipeCam" && tags["EXIF:DateTimeOriginal"]?.stringValue == "2024:05:06 07:08:09",
                    "\(format) \(keep)")
            #expect(tags["ExifTool:Warning"] == nil, "\(format) \(keep): \(tags["ExifTool:Warning"].map { "\($0)" } ?? "")")
            // Gone from the bytes too, not only unreachable.
            let written = try Self.exifBytes(output)
            #expect(!written.isEmpty && !written.contains(latitude), "\(format) \(keep)")
        }
    }

    @Test func exifSaysTheWrittenSizeAndHasNoThumbnail() throws {
        let directory = try TemporaryDirectory()
        let input = try Self.cameraWithThumbnail(in: directory)
        let source = try ExifTool.tags(input)
        try #require(source["EXIF:ExifImageWidth"]?.numberValue == 40 && source["EXIF:ThumbnailLength"] != nil, "\(source.keys.sorted())")
        let sourceBytes = try Self.exifBytes(input).count
        for format in ["jpg", "png", "webp", "avif"] {
            let output = directory.file("small.\(format)")
            let result = try CommandRunner.run(["run", "-e", "resize 10x | save keep=exif", input, "-o", output, "--overwrite"])
            try #require(result.status == 0, "\(result.standardError)")
            let tags = try ExifTool.tags(output)
            #expect(tags["EXIF:ExifImageWidth"]?.numberValue == 10 && tags["EXIF:ExifImageHeight"]?.numberValue == 20,
                    "\(format): \(String(describing: tags["EXIF:ExifImageWidth"])) x \(String(describing: tags["EXIF:ExifImageHeight"]))")
            #expect(tags.keys.filter { $0.hasPrefix("EXIF:Thumbnail") }.isEmpty, "\(format): \(tags.keys.sorted())")
            #expect(tags["EXIF:Make"]?.stringValue == "ImagePipeCam" && tags["EXIF:GPSLatitude"]?.numberValue == 48.1, "\(format)")
            #expect(tags["ExifTool:Warning"] == nil, "\(format): \(String(describing: tags["ExifTool:Warning"]))")
            // The thumbnail ended the block: it is cut off, not only zeroed.
            let written = try Self.exifBytes(output).count
            #expect(written < sourceBytes - 300, "\(format): \(written) bytes of EXIF, \(sourceBytes) in the input")
        }
    }

    /// A JPEG cropped by moving its coefficients (no decode) says the crop's size too.
    @Test func aLosslessCropSaysItsSize() throws {
        let directory = try TemporaryDirectory()
        let input = try directory.write(Synthetic.gradient(64, 32).encoded(as: .jpeg), to: "wide.jpg")
        try ExifTool.write(input, ["-Make=ImagePipeCam", "-ExifImageWidth=64", "-ExifImageHeight=32"])
        let output = directory.file("cropped.jpg")
        let result = try CommandRunner.run(["run", "-e", "crop 32x16+16+16 | save keep=exif lossless=true", input, "-o", output])
        try #require(result.status == 0, "\(result.standardError)")
        let tags = try ExifTool.tags(output)
        #expect(tags["File:ImageWidth"]?.numberValue == 32 && tags["EXIF:ExifImageWidth"]?.numberValue == 32
            && tags["EXIF:ExifImageHeight"]?.numberValue == 16 && tags["EXIF:Make"]?.stringValue == "ImagePipeCam", "\(tags)")
    }

    /// An XMP packet can hold the position too (exif:GPSLatitude, a drone's drone-dji:GpsLatitude):
    /// `-gps` leaves such a packet out with a warning, and keeps one without it.
    @Test func anXMPPacketWithAPositionIsLeftOut() throws {
        let directory = try TemporaryDirectory()
        let located = MetadataKeepTests.xmp.replacingOccurrences(of: "xmp:CreatorTool=\"ImagePipe test\"",
                                                                 with: "xmp:CreatorTool=\"ImagePipe test\" xmlns:exif=\"http://ns.adobe.com/exif/1.0/\" exif:GPSLatitude=\"48,6.0N\"")
        let input = try directory.write(HostileMetadataTests.jpeg(with: HostileMetadataTests.segment(0xE1, Array("http://ns.adobe.com/xap/1.0/\0".utf8) + Array(located.utf8))),
                                        to: "located.jpg")
        try #require(try ExifTool.tags(input)["XMP:GPSLatitude"] != nil)
        let dropped = try CommandRunner.run(["run", "-e", "save keep=all,-gps", input, "-o", directory.file("out.png")])
        #expect(dropped.status == 0 && dropped.standardError.contains("the XMP packet holds a GPS position"), "\(dropped.standardError)")
        #expect(MetadataKeepTests.groups(try ExifTool.tags(directory.file("out.png")), "XMP").isEmpty)
        let drone = try directory.write(HostileMetadataTests.jpeg(with: HostileMetadataTests.segment(0xE1, Array("http://ns.adobe.com/xap/1.0/\0".utf8)
            + Array(MetadataKeepTests.xmp.replacingOccurrences(of: "xmp:CreatorTool=\"ImagePipe test\"",
                                                               with: "xmp:CreatorTool=\"ImagePipe test\" xmlns:drone-dji=\"http://www.dji.com/drone-dji/1.0/\" drone-dji:GpsLatitude=\"48.1\"").utf8))),
            to: "drone.jpg")
        let fromDrone = try CommandRunner.run(["run", "-e", "save keep=xmp,-gps,exif", drone, "-o", directory.file("drone.png")])
        #expect(fromDrone.status == 0 && fromDrone.standardError.contains("the XMP packet holds a GPS position"), "\(fromDrone.standardError)")
        // -gps narrows any list: XMP alone, and a profile alone (which holds no position: the same as keep=icc).
        let xmpOnly = try CommandRunner.run(["run", "-e", "save keep=-gps,xmp", drone, "-o", directory.file("xmp-only.png")])
        #expect(xmpOnly.status == 0 && xmpOnly.standardError.contains("the XMP packet holds a GPS position"), "\(xmpOnly.standardError)")
        #expect(MetadataKeepTests.groups(try ExifTool.tags(directory.file("xmp-only.png")), "XMP").isEmpty)
        let iccOnly = try CommandRunner.run(["run", "-e", "save keep=icc,-gps", input, "-o", directory.file("icc-only.png")])
        #expect(iccOnly.status == 0 && iccOnly.standardError.isEmpty, "\(iccOnly.standardError)")
        #expect(MetadataKeepTests.groups(try ExifTool.tags(directory.file("icc-only.png")), "XMP").isEmpty)
        let kept = try CommandRunner.run(["run", "-e", "save keep=all", input, "-o", directory.file("kept.png")])
        #expect(kept.status == 0, "\(kept.standardError)")
        #expect(try ExifTool.tags(directory.file("kept.png"))["XMP:GPSLatitude"] != nil)
        let plain = try directory.write(HostileMetadataTests.jpeg(with: HostileMetadataTests.segment(0xE1, Array("http://ns.adobe.com/xap/1.0/\0".utf8) + Array(MetadataKeepTests.xmp.utf8))),
                                        to: "plain.jpg")
        let clean = try CommandRunner.run(["run", "-e", "save keep=xmp,-gps,exif", plain, "-o", directory.file("clean.png")])
        #expect(clean.status == 0 && !clean.standardError.contains("GPS"), "\(clean.standardError)")
        #expect(try ExifTool.tags(directory.file("clean.png"))["XMP:CreatorTool"]?.stringValue == "ImagePipe test")
    }

    /// A TIFF header and IFD0 in either byte order, the directory at `at` holding `entries`
    /// (tag, type, count, four value bytes), then its next pointer.
    static func block(bigEndian: Bool = false, at directory: UInt32 = 8, entries: [(UInt16, UInt16, UInt32, [UInt8])]) -> [UInt8] {
        func bytes<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
            withUnsafeBytes(of: bigEndian ? value.bigEndian : value.littleEndian) { Array($0) }
        }
        var block: [UInt8] = (bigEndian ? [0x4D, 0x4D, 0, 42] : [0x49, 0x49, 42, 0]) + bytes(directory)
        block += [UInt8](repeating: 0, count: max(0, Int(directory) - 8))
        block += bytes(UInt16(entries.count))
        for (tag, type, count, value) in entries { block += bytes(tag) + bytes(type) + bytes(count) + value }
        return block + bytes(UInt32(0))
    }

    /// Which EXIF blocks are copied is what ExifTool can read: a block it reads without a
    /// warning is kept, one it calls malformed is left out, with a warning naming the input.
    @Test func blocksAreKeptAsExifToolReadsThem() throws {
        let directory = try TemporaryDirectory()
        let orientation: (UInt16, UInt16, UInt32, [UInt8]) = (0x0112, 3, 1, [1, 0, 0, 0])
        let make: (UInt16, UInt16, UInt32, [UInt8]) = (0x010F, 2, 4, Array("Abc\0".utf8))
        let cases: [(name: String, block: [UInt8], kept: Bool)] = [
            ("little-endian", Self.block(entries: [orientation, make]), true),
            ("big-endian", Self.block(bigEndian: true, entries: [(0x0112, 3, 1, [0, 1, 0, 0]), make]), true),
            ("directory-later", Self.block(at: 20, entries: [orientation]), true),
            ("empty-directory", Self.block(entries: []), true),
            ("no-next-pointer", Array(Self.block(entries: [orientation, make]).dropLast(4)), true),
            ("exif-marker-twice", Array("Exif\0\0".utf8) + Self.block(entries: [orientation]), false),
            ("directory-in-header", [0x49, 0x49, 42, 0, 4, 0, 0, 0, 0, 0, 0, 0], false),
            ("directory-past-end", [0x49, 0x49, 42, 0, 100, 0, 0, 0, 1, 0], false),
            ("entries-past-end", Array(Self.block(entries: [orientation, make]).dropLast(14)), false),
        ]
        for item in cases {
            let input = try directory.write(HostileMetadataTests.jpeg(with: HostileMetadataTests.segment(0xE1, Array("Exif\0\0".utf8) + item.block)),
                                            to: "in-\(item.name).jpg")
            // ExifTool's own reading of the input decides which blocks are valid.
            let reference = try ExifTool.tags(input)
            try #require((reference["ExifTool:Warning"] == nil) == item.kept, "\(item.name): ExifTool says \(String(describing: reference["ExifTool:Warning"]))")
            let output = directory.file("out-\(item.name).png")
            let result = try CommandRunner.run(["run", "-e", "save keep=exif", input, "-o", output])
            #expect(result.status == 0, "\(item.name): \(result.standardError)")
            let tags = try ExifTool.tags(output)
            if item.kept {
                #expect(!result.standardError.contains("EXIF"), "\(item.name): \(result.standardError)")
                #expect(tags["ExifTool:Warning"] == nil, "\(item.name): \(String(describing: tags["ExifTool:Warning"]))")
                if item.block.count > 30 { #expect(tags["EXIF:Make"]?.stringValue == "Abc" || tags["EXIF:Orientation"] != nil, "\(item.name)") }
            } else {
                #expect(result.standardError.contains("in-\(item.name).jpg: the EXIF block (\(item.block.count) bytes) is not valid"),
                        "\(item.name): \(result.standardError)")
                #expect(!result.standardError.contains("out-\(item.name)"), "\(item.name): the warning names the input, not the output")
                #expect(MetadataKeepTests.groups(tags, "EXIF").isEmpty, "\(item.name): \(tags.keys.sorted())")
            }
        }
    }
}
