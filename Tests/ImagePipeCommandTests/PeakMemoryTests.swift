import Foundation
import Testing
import ImagePipe
import TestSupport

/// One run's peak memory is the decoded input, the output file and a constant: the encoders
/// work from the picture row by row, not from copies of it. Each run is compared with the same
/// run on an 8x8 picture, which measures the constant part (the runtime and libraries).
@Suite struct PeakMemoryTests {
    static let photo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Samples/images/leaf.jpg").path
    /// What a run may hold beyond the pictures and its 8x8 twin: a few encoder buffers and strips.
    static let constant = 16 << 20
    static let size = Size(4000, 3000)

    /// Beyond decoded input and output file, what each encoder is allowed to hold, per pixel:
    /// WebP's own YUV 4:2:0 picture (1.5 bytes), and for JPEG with Huffman optimization (the
    /// default) libjpeg's DCT coefficients of the whole picture (2 bytes a sample, 4:4:4: 6 bytes);
    /// without it libjpeg streams rows and holds nothing more.
    /// Not under ThreadSanitizer (`make sanitize`): its shadow memory grows with what the big
    /// run touches (the PNG runs peaked at 174 MB there, against 116 MB allowed).
    /// A JPEG streamed to JPEG through tone stages is decoded into a ring of rows that the
    /// decoder rewrites as the encoder lets go of them, and area stages through windows and rings
    /// of their own: 45 megapixels (134 MB decoded) through `grayscale | blur 2 | sharpen`
    /// without Huffman optimization peak at some 78 MB, where the same run of whole pictures
    /// (`IMAGEPIPE_WHOLE_PICTURES=1`) holds the whole decode; the files are the same. So with a
    /// `tee` on the way, whose file is encoded from rows as they pass it, and with a `branch`.
    @Test(.disabled(if: CommandRunner.binary.contains("/.build/tsan/"), "ThreadSanitizer's shadow memory inflates the peaks"))
    func aStreamedRunHoldsARingOfRowsNotThePicture() throws {
        let directory = try TemporaryDirectory()
        _ = try directory.write(Synthetic.gradient(300, 200).encoded(as: .png), to: "small.png")
        let made = try CommandRunner.run(["run", "-e", "extend right=7400 bottom=5600 | modulate hue=30", "small.png", "-o", "big.jpg"],
                                         in: directory.path)
        #expect(made.status == 0, "\(made.standardError)")
        let decoded = 7700 * 5800 * 3
        // A point stage, and area stages, which go through windows and rings of their own.
        let pipeline = "grayscale | blur 2 | sharpen | save optimize-coding=false"
        let streamed = try PeakMemory.run(["run", "-e", pipeline, "big.jpg", "-o", "streamed.jpg"], in: directory.path)
        let ordinary = try PeakMemory.run(["run", "-e", pipeline, "big.jpg", "-o", "ordinary.jpg"], in: directory.path,
                                              environment: CommandRunner.wholePictures)
        #expect(streamed.status == 0 && ordinary.status == 0, "\(streamed.standardError) \(ordinary.standardError)")
        #expect(streamed.peakBytes < decoded * 3 / 4, "peak \(streamed.peakBytes >> 20) MiB for a \(decoded >> 20) MiB picture")
        #expect(ordinary.peakBytes > decoded, "the ordinary run holds the decode: \(ordinary.peakBytes >> 20) MiB")
        #expect(try Data(contentsOf: URL(fileURLWithPath: directory.file("streamed.jpg"))) == Data(contentsOf: URL(fileURLWithPath: directory.file("ordinary.jpg"))))
        // A tee writes its file from rows too, on a thread of its own: the picture at the tee is
        // never whole either.
        let teed = "blur 2 | tee {stem}-teed.tif | sharpen | save optimize-coding=false"
        let streamedTee = try PeakMemory.run(["run", "-e", teed, "big.jpg", "-o", "streamed.jpg"], in: directory.path)
        try FileManager.default.moveItem(atPath: directory.file("big-teed.tif"), toPath: directory.file("streamed-teed.tif"))
        let ordinaryTee = try PeakMemory.run(["run", "-e", teed, "big.jpg", "-o", "ordinary.jpg"], in: directory.path,
                                              environment: CommandRunner.wholePictures)
        #expect(streamedTee.status == 0 && ordinaryTee.status == 0, "\(streamedTee.standardError) \(ordinaryTee.standardError)")
        #expect(streamedTee.peakBytes < decoded * 3 / 4, "with a tee: peak \(streamedTee.peakBytes >> 20) MiB for a \(decoded >> 20) MiB picture")
        #expect(ordinaryTee.peakBytes > decoded, "the ordinary run holds the decode: \(ordinaryTee.peakBytes >> 20) MiB")
        #expect(try Data(contentsOf: URL(fileURLWithPath: directory.file("streamed-teed.tif"))) == Data(contentsOf: URL(fileURLWithPath: directory.file("big-teed.tif"))))
        // And a branch: its other group's stages and encoder work from the rows at the branch.
        let branched = try PeakMemory.run(["run", "-e", "blur 2 | branch { grayscale | save gray.tif } { sharpen | save big-out.jpg optimize-coding=false }",
                                           "big.jpg"], in: directory.path)
        #expect(branched.status == 0, "\(branched.standardError)")
        #expect(branched.peakBytes < decoded * 3 / 4, "with a branch: peak \(branched.peakBytes >> 20) MiB for a \(decoded >> 20) MiB picture")
    }

    @Test(.disabled(if: CommandRunner.binary.contains("/.build/tsan/"), "ThreadSanitizer's shadow memory inflates the peaks"),
          arguments: [("out.png", "", 0.0), ("out.jpg", "save optimize-coding=false", 0.0),
                      ("out.jpg", "", 6.0), ("out.webp", "", 1.5)])
    func peakIsInputPlusOutputPlusAConstant(output: String, save: String, encoderBytesPerPixel: Double) throws {
        let directory = try TemporaryDirectory()
        for (name, size) in [("big", Self.size), ("tiny", Size(8, 8))] {
            let made = try CommandRunner.run(["run", "-e", "resize \(size.width)x\(size.height)", Self.photo, "-o", "\(name).png"], in: directory.path)
            #expect(made.status == 0, "\(made.standardError)")
        }
        for input in ["big.png", "tiny.png"] {
            _ = try CommandRunner.run(["run", "-e", "", input, "-o", input.replacingOccurrences(of: ".png", with: ".jpg")], in: directory.path)
        }
        for source in ["big.png", "big.jpg"] {
            let twin = source.replacingOccurrences(of: "big", with: "tiny")
            let small = try PeakMemory.run(["run", "-e", save, twin, "-o", "tiny-" + output], in: directory.path)
            let large = try PeakMemory.run(["run", "-e", save, source, "-o", output, "--overwrite"], in: directory.path)
            #expect(small.status == 0 && large.status == 0, "\(large.standardError)")
            let decoded = Self.size.pixelCount * 3
            let written = try #require(try FileManager.default.attributesOfItem(atPath: directory.file(output))[.size] as? Int)
            let encoder = Int(Double(Self.size.pixelCount) * encoderBytesPerPixel)
            let allowed = small.peakBytes + decoded + written + encoder + Self.constant
            print("\(source) -> \(output) \(save): peak \(large.peakBytes >> 10) KiB; 8x8 run \(small.peakBytes >> 10) KiB, decoded \(decoded >> 10) KiB, written \(written >> 10) KiB, encoder \(encoder >> 10) KiB")
            #expect(large.peakBytes <= allowed, "peak \(large.peakBytes >> 10) KiB, allowed \(allowed >> 10) KiB")
        }
    }
}
