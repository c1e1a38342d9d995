import Foundation
import Testing
import ImagePipe
import PipelineFuzzing
import TestSupport

/// The decoding fuzzer's seed corpus, made here from Samples/images (small crops in every
/// vetted format, an EXIF-turned JPEG, animations, and damaged copies), and every picture it
/// ever found a crash with (Tests/Fuzz/decode-regressions): all pass the fuzz check. With
/// IMAGEPIPE_FUZZ_CORPUS set (`make fuzz` does), the seeds are also written there.
@Suite struct DecodeFuzzTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func seeds() throws -> [(String, [UInt8])] {
        let images = root.appendingPathComponent("Samples/images").path
        var seeds: [(String, [UInt8])] = []
        for name in try FileManager.default.contentsOfDirectory(atPath: images).sorted() where name.hasSuffix(".jpg") {
            // Decoded at 1/8 in the DCT, then a corner: seeds of a few KB keep the fuzzer fast.
            let picture = try Image.load(path: images + "/" + name, options: LoadOptions(atLeast: Size(64, 64)))
            let crop = try picture.cropped(to: Rect(x: 0, y: 0, width: min(40, picture.width), height: min(30, picture.height)))
            let stem = String(name.dropLast(4))
            for format in [ImageFormat.jpeg, .png, .webp, .tiff, .bmp, .gif] where format.isWritable {
                let bytes = try crop.encoded(as: format)
                seeds.append(("\(stem).\(format.rawValue)", bytes))
                seeds.append(("\(stem)-cut.\(format.rawValue)", Array(bytes.prefix(bytes.count / 2))))
            }
            seeds.append(("\(stem)-turned.jpeg", Synthetic.withExifOrientation(try crop.encoded(as: .jpeg), orientation: 6)))
        }
        seeds.append(("animated.gif", InputLimitTests.animatedGIF(width: 20, height: 10, frames: 3)))
        if ImageFormat.webp.isWritable { seeds.append(("animated.webp", try InputLimitTests.animatedWebP(canvas: 32, frames: 3))) }
        let regressions = root.appendingPathComponent("Tests/Fuzz/decode-regressions").path
        for name in ((try? FileManager.default.contentsOfDirectory(atPath: regressions)) ?? []).sorted() {
            seeds.append((name, try [UInt8](Data(contentsOf: URL(fileURLWithPath: regressions + "/" + name)))))
        }
        return seeds
    }

    @Test func seedsAndRegressionsPassTheDecodeCheck() throws {
        let seeds = try Self.seeds()
        #expect(seeds.count > 20)
        #expect(seeds.allSatisfy { $0.1.count < 16_384 }, "seeds stay small")
        for (_, bytes) in seeds {
            bytes.withUnsafeBufferPointer { DecodeFuzzCheck.check($0) }
        }
        if let corpus = ProcessInfo.processInfo.environment["IMAGEPIPE_FUZZ_CORPUS"] {
            try FileManager.default.createDirectory(atPath: corpus, withIntermediateDirectories: true)
            for (name, bytes) in seeds { try Data(bytes).write(to: URL(fileURLWithPath: corpus + "/" + name)) }
        }
    }

    /// The BMP headers the fuzzer found gdk-pixbuf's loader sizing gigabyte buffers by (the info
    /// header's size; a palette count of 0xFFFFFFFF) are refused by ImagePipe's own BMP reader.
    @Test(arguments: [("bmp-header-size-allocates-3gb.bmp", "an info header of"),
                      ("bmp-palette-count-allocates-4gb.bmp", "a palette of 4294967295 colors")])
    func hostileBMPHeadersAreRefusedFirst(name: String, reason: String) throws {
        let bytes = try [UInt8](Data(contentsOf: Self.root.appendingPathComponent("Tests/Fuzz/decode-regressions/" + name)))
        do {
            _ = try Image.decode(bytes, options: LoadOptions())
            Issue.record("\(name) decoded")
        } catch let error as ImageError {
            #expect(error.description.contains("starts like a BMP but its header is invalid (\(reason)"), "\(error)")
        }
    }

    /// A GIF whose first frame has no pixels (found with G_DEBUG=fatal-criticals: gdk-pixbuf's
    /// loader asserted in gdk_pixbuf_calculate_rowstride, then said "Not enough memory") is
    /// refused by name before the loader runs, for the header as for the decode, with or without
    /// fail=false; also when bytes that start no block come before the frame (the loader passes
    /// over them).
    @Test(arguments: ["gif-empty-first-frame.gif", "gif-junk-then-empty-frame.gif"])
    func aGIFWithAnEmptyFirstFrameIsRefusedFirst(name: String) throws {
        let bytes = try [UInt8](Data(contentsOf: Self.root.appendingPathComponent("Tests/Fuzz/decode-regressions/" + name)))
        let header = try #require(throws: ImageError.self) { try ImageHeader.read(bytes: bytes) }
        #expect(header.description.contains("the GIF's first frame is empty ("), "\(header)")
        for failOn in [FailOn.error, .none] {
            let error = try #require(throws: ImageError.self) { try Image.decode(bytes, options: LoadOptions(failOn: failOn)) }
            #expect(error.description.contains("the GIF's first frame is empty ("), "\(error)")
        }
    }

    /// A GIF whose first frame (10x512, 20 rows down) reaches past its 20x10 screen: the loader
    /// asserted as it composited the frame (the decode fuzzer, under G_DEBUG=fatal-criticals);
    /// the screen is widened to hold it, for the header as for the decode.
    @Test func aGIFFrameReachingPastItsScreenWidensTheScreen() throws {
        let bytes = try [UInt8](Data(contentsOf: Self.root.appendingPathComponent("Tests/Fuzz/decode-regressions/gif-first-frame-outside-screen.gif")))
        #expect(try ImageHeader.read(bytes: bytes).storedSize == Size(20, 532))
        // Its LZW data is damaged: refused, by ImagePipe's check or (fail=false) the loader's, never a critical.
        for failOn in [FailOn.error, .none] {
            #expect(throws: ImageError.self) { try Image.decode(bytes, options: LoadOptions(failOn: failOn)) }
        }
        let whole = InputLimitTests.animatedGIF(width: 30, height: 20, frames: 2)
        #expect(try ImageHeader.read(bytes: whole).storedSize == Size(30, 20), "a frame inside its screen leaves the screen as it is")
    }

    /// An animated WebP whose first frame holds a chunk that is no image (a VP8X saying
    /// "animation", on which a decoder of the frame as a still picture asserted) is refused
    /// before libwebp sees the frame.
    @Test func aWebPFrameWithoutImageDataIsRefusedFirst() throws {
        let bytes = try [UInt8](Data(contentsOf: Self.root.appendingPathComponent("Tests/Fuzz/decode-regressions/webp-frame-holding-vp8x.webp")))
        let error = try #require(throws: ImageError.self) { try Image.decode(bytes) }
        #expect(error.description.contains("an animated WebP whose first frame holds no image data"), "\(error)")
    }

    /// An animated WebP whose first frame, said to be 4x4 on a 4x4 canvas, holds a 4x8196 image:
    /// the header read said 4x4 and the frame, decoded alone, gave 4x8196 (the decode fuzzer). A
    /// frame is as large as its image, as libwebp's demuxer takes it, and sits on the canvas.
    @Test func aWebPFrameImageOfAnotherSizeThanItsFrameSitsOnTheCanvas() throws {
        let bytes = try [UInt8](Data(contentsOf: Self.root.appendingPathComponent("Tests/Fuzz/decode-regressions/webp-frame-image-taller-than-its-frame.webp")))
        #expect(try ImageHeader.read(bytes: bytes).storedSize == Size(4, 4))
        for failOn in [FailOn.error, .none] {
            // Its lossless data is damaged: refused, or (fail=none) the canvas, never the image's size.
            if let image = try? Image.decode(bytes, options: LoadOptions(failOn: failOn)) { #expect(image.size == Size(4, 4)) }
        }
    }

    /// An animation with a byte that starts no block before its first frame is still cut to that
    /// frame (the loader would find every frame after it, each as large as the canvas).
    @Test func bytesBeforeAGIFsFirstFrameDoNotHideTheAnimation() throws {
        let animation = InputLimitTests.animatedGIF(width: 20, height: 10, frames: 3)
        let packed = Int(animation[10]), start = 13 + (packed & 0x80 != 0 ? 3 << ((packed & 7) + 1) : 0)
        let junk = Array(animation[..<start]) + [0x1B, 0x1B] + Array(animation[start...])
        let header = try ImageHeader.read(bytes: junk)
        #expect(header.frameCount == 3 && header.storedSize == Size(20, 10), "\(header)")
    }

    /// SVG is not vetted: reading it is an ImageError saying so, for the header and the
    /// decoder alike, which is what lets the fuzz check pass it instead of stopping.
    @Test func anUnvettedFormatPassesTheCheckAsAnError() {
        let svg = Array(FormatAllowlistTests.svg.utf8)
        let options = LoadOptions(maxPixels: 4_000_000, maxInputBytes: 1 << 20)
        #expect {
            _ = try ImageHeader.read(bytes: svg, options: options)
        } throws: { error in
            (error as? ImageError).map { "\($0)".contains("SVG: not allowed by default") } ?? false
        }
        #expect(throws: ImageError.self) { _ = try Image.decode(svg, options: options) }
        svg.withUnsafeBufferPointer { DecodeFuzzCheck.check($0) }
    }
}
