import Foundation
import ImagePipe
import Testing
import TestSupport

/// `ExifBlock`'s in-place edits (no GPS, no thumbnail, the written size) and its tag listing on
/// a block ExifTool wrote, and on thousands of damaged copies of it, which must give a block or
/// the block back, never a crash.
@Suite struct ExifBlockEditingTests {
    /// A block with IFD0, the Exif and GPS directories and a thumbnail, in ExifTool's big-endian order.
    static func cameraBlock() throws -> [UInt8] {
        let directory = try TemporaryDirectory()
        let path = try directory.write(Synthetic.gradient(40, 20).encoded(as: .jpeg), to: "camera.jpg")
        let thumbnail = try directory.write(Synthetic.gradient(16, 8).encoded(as: .jpeg), to: "thumbnail.jpg")
        try ExifTool.write(path, ["-Make=ImagePipeCam", "-GPSLatitude=48.1", "-GPSLatitudeRef=S", "-GPSLongitude=11.5", "-GPSLongitudeRef=E",
                                  "-ExifImageWidth=40", "-ExifImageHeight=20", "-IFD0:ImageWidth=40", "-IFD0:ImageHeight=20",
                                  "-ThumbnailImage<=\(thumbnail)"])
        return try CommandRunner.runProgram(ExifTool.program, ["-b", "-EXIF", path]).outputBytes
    }

    @Test func editsAndListing() throws {
        let block = ExifBlock(try Self.cameraBlock())
        try #require(block.isWellFormed)
        let position = try #require(block.gpsPosition)
        #expect(abs(position.latitude + 48.1) < 1e-9 && abs(position.longitude - 11.5) < 1e-9, "south is negative")
        #expect(block.tags.contains { $0.directory == "IFD1" }, "the thumbnail's directory")

        let edited = block.withoutGPS().withoutThumbnail().withPixelDimensions(width: 70_000, height: 9)
        #expect(edited.isWellFormed && edited.bytes.count < block.bytes.count - 200, "\(edited.bytes.count) of \(block.bytes.count) bytes")
        let tags = edited.tags
        #expect(!tags.contains { $0.directory == "GPS" || $0.directory == "IFD1" }, "\(tags.map(\.name))")
        #expect(edited.gpsPosition == nil)
        #expect(tags.contains { $0.name == "Make" && $0.value == "ImagePipeCam" })
        // A width past a SHORT's reach is written as a LONG in the same entry.
        #expect(tags.contains { $0.name == "PixelXDimension" && $0.value == "70000" } && tags.contains { $0.name == "PixelYDimension" && $0.value == "9" },
                "\(tags.filter { $0.name.hasPrefix("Pixel") })")
        // IFD0's size, which some cameras write too, says the written size as well.
        #expect(tags.contains { $0.directory == "IFD0" && $0.name == "ImageWidth" && $0.value == "70000" }
                && tags.contains { $0.directory == "IFD0" && $0.name == "ImageLength" && $0.value == "9" },
                "\(tags.filter { $0.directory == "IFD0" }.map { "\($0.name)=\($0.value)" })")
        // Blocks without what an edit looks for come back as they were.
        let bare = ExifBlock([0x49, 0x49, 42, 0, 8, 0, 0, 0, 0, 0, 0, 0, 0, 0])
        #expect(bare.withoutGPS().bytes == bare.bytes && bare.withoutThumbnail().bytes == bare.bytes
            && bare.withPixelDimensions(width: 1, height: 1).bytes == bare.bytes)
    }

    /// Damaged copies: bytes changed at random (offsets and counts among them) and cut short.
    @Test func damagedBlocksNeverCrash() throws {
        let original = try Self.cameraBlock()
        var generator = SeededGenerator(seed: 53)
        for round in 0..<3000 {
            var bytes = original
            for _ in 0..<Int.random(in: 1...8, using: &generator) {
                bytes[Int.random(in: 0..<min(bytes.count, 160), using: &generator)] = UInt8.random(in: 0...255, using: &generator)
            }
            if round % 5 == 0 { bytes = Array(bytes.prefix(Int.random(in: 0...bytes.count, using: &generator))) }
            let block = ExifBlock(bytes)
            let edited = block.withoutGPS().withoutThumbnail().withPixelDimensions(width: 640, height: 480)
            #expect(edited.bytes.count <= bytes.count)
            _ = (edited.tags, edited.gpsPosition, edited.isWellFormed)
        }
    }
}
