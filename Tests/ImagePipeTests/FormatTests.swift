import Foundation
import ImagePipe
import Testing
import TestSupport

/// Every writable format round-trips through ImagePipe's own reader, with the options each has.
@Suite struct FormatTests {
    /// A gradient with a transparent and a half-transparent band.
    static func withAlpha() throws -> Image {
        try Synthetic.image(24, 16, alpha: true) { x, y in
            Color(red: UInt8(x * 10), green: UInt8(y * 15), blue: 200, alpha: y < 4 ? 0 : y < 8 ? 128 : 255)
        }
    }

    /// Four flat colors and (with alpha) a transparent corner: a palette holds it exactly.
    static func fourColors(alpha: Bool) throws -> Image {
        try Synthetic.image(16, 16, alpha: alpha) { x, y in
            if alpha, x < 4, y < 4 { return Color(red: 0, green: 0, blue: 0, alpha: 0) }
            return [Color(red: 255, green: 0, blue: 0), Color(red: 0, green: 128, blue: 0), Color(red: 20, green: 40, blue: 250),
                    Color(red: 240, green: 240, blue: 200)][(x / 8) + 2 * (y / 8)]
        }
    }

    static func maxDifference(_ a: Image, _ b: Image) -> Int {
        var worst = 0
        for y in 0..<a.height {
            for x in 0..<a.width {
                let p = a.pixel(x: x, y: y), q = b.pixel(x: x, y: y)
                // Color under full transparency is not kept by every format.
                if p.alpha == 0 && q.alpha == 0 { continue }
                worst = max(worst, abs(Int(p.red) - Int(q.red)), abs(Int(p.green) - Int(q.green)), abs(Int(p.blue) - Int(q.blue)),
                            abs(Int(p.alpha) - Int(q.alpha)))
            }
        }
        return worst
    }

    @Test(arguments: [ImageFormat.png, .bmp, .tiff, .ico])
    func losslessFormatsKeepEveryPixelAndAlpha(format: ImageFormat) throws {
        let original = try Self.withAlpha()
        let decoded = try Image.decode(original.encoded(as: format), options: LoadOptions(allowedFormats: Set(ImageFormat.allCases)))
        #expect(decoded.hasAlpha, "\(format) kept alpha")
        #expect(Self.maxDifference(original, decoded) == 0, "\(format)")
    }

    @Test func losslessWebPAndAVIFAreExact() throws {
        let original = try Self.withAlpha()
        for format in [ImageFormat.webp, .avif] {
            let bytes = try original.encoded(as: format, options: SaveOptions(lossless: true))
            let decoded = try Image.decode(bytes)
            #expect(decoded.hasAlpha && Self.maxDifference(original, decoded) == 0, "lossless \(format)")
        }
    }

    @Test func lossyWebPAndAVIFAreCloseAndFollowQuality() throws {
        let original = try Synthetic.gradient(64, 48)
        for format in [ImageFormat.webp, .avif] {
            let high = try original.encoded(as: format, options: SaveOptions(quality: 90))
            let low = try original.encoded(as: format, options: SaveOptions(quality: 20))
            #expect(low.count < high.count, "\(format): quality 20 smaller than 90")
            #expect(Self.maxDifference(original, try Image.decode(high)) <= 12, "\(format) at 90")
        }
        let near = try original.encoded(as: .webp, options: SaveOptions(quality: 60, nearLossless: true))
        #expect(Self.maxDifference(original, try Image.decode(near)) <= 8)
        let opaqueAlpha = try Self.withAlpha()
        let fullAlpha = try opaqueAlpha.encoded(as: .webp, options: SaveOptions(alphaQuality: 100))
        #expect(try Image.decode(fullAlpha).pixel(x: 3, y: 5).alpha == 128)
    }

    @Test func paletteAndGIFHoldAFewColorsExactly() throws {
        let original = try Self.fourColors(alpha: true)
        let png = try original.encoded(as: .png, options: SaveOptions(palette: true, colors: 16))
        #expect(png[25] == 3 && png[24] == 4, "IHDR: palette, 4 bits for at most 16 colors")
        #expect(Self.maxDifference(original, try Image.decode(png)) == 0)
        let gif = try original.encoded(as: .gif)
        let decoded = try Image.decode(gif)
        #expect(decoded.pixel(x: 1, y: 1).alpha == 0 && Self.maxDifference(original, decoded) == 0)
        // A gradient of hundreds of colors reduced to 8.
        let many = try Image.decode(Synthetic.gradient(64, 64).encoded(as: .png, options: SaveOptions(palette: true, colors: 8)))
        var seen = Set<UInt32>()
        for y in 0..<64 { for x in 0..<64 { let c = many.pixel(x: x, y: y); seen.insert(UInt32(c.red) << 16 | UInt32(c.green) << 8 | UInt32(c.blue)) } }
        #expect(seen.count <= 8 && seen.count >= 4)
    }

    @Test func jpegChromaProgressiveAndHuffmanOptions() throws {
        let image = try Synthetic.gradient(64, 48)
        func frame(_ options: SaveOptions) throws -> JPEGFrame? { JPEGFrame(try image.encoded(as: .jpeg, options: options)) }
        #expect(try frame(SaveOptions())?.sampling == [0x22, 0x11, 0x11], "4:2:0 at the default quality 80")
        #expect(try frame(SaveOptions(quality: 90))?.sampling == [0x11, 0x11, 0x11], "4:4:4 from 90")
        #expect(try frame(SaveOptions(quality: 89))?.sampling == [0x22, 0x11, 0x11], "4:2:0 below 90")
        #expect(try frame(SaveOptions(chroma: .c422))?.sampling == [0x21, 0x11, 0x11])
        #expect(try frame(SaveOptions(quality: 100, chroma: .c420))?.sampling == [0x22, 0x11, 0x11])
        #expect(try frame(SaveOptions())?.marker == 0xC0)
        #expect(try frame(SaveOptions(progressive: true))?.marker == 0xC2)
        let optimized = try image.encoded(as: .jpeg), standard = try image.encoded(as: .jpeg, options: SaveOptions(optimizeCoding: false))
        #expect(optimized.count < standard.count)
        #expect(Self.maxDifference(try Image.decode(optimized), try Image.decode(standard)) == 0, "the same pixels")
        let decoded = try Image.decode(optimized)
        #expect(Self.maxDifference(image, decoded) <= 8, "quality 80, 4:2:0")
        #expect(optimized == (try image.encoded(as: .jpeg, options: SaveOptions(optimizeCoding: true))), "auto makes the tables for a small picture")
    }

    /// Huffman tables made for the picture need libjpeg to keep all its DCT coefficients: auto
    /// makes them while those take at most 256 MiB (2 bytes a sample as sampled), so memory stops
    /// growing with larger pictures; said outright, it does what it is told.
    @Test func autoOptimizesCodingWhileTheCoefficientsFit() {
        let auto = SaveOptions()
        #expect(auto.optimizesCoding(size: Size(6000, 7000), gray: false, quality: 90)) // 4:4:4, 252 MB
        #expect(!auto.optimizesCoding(size: Size(8000, 6000), gray: false, quality: 90)) // 4:4:4, 288 MB
        #expect(auto.optimizesCoding(size: Size(8000, 6000), gray: false, quality: 80)) // 4:2:0, 144 MB
        #expect(auto.optimizesCoding(size: Size(8000, 6000), gray: true, quality: 90)) // gray, 96 MB
        #expect(!auto.optimizesCoding(size: Size(12000, 12000), gray: true, quality: 90)) // gray, 288 MB
        #expect(SaveOptions(optimizeCoding: true).optimizesCoding(size: Size(20000, 20000), gray: false, quality: 90))
        #expect(!SaveOptions(optimizeCoding: false).optimizesCoding(size: Size(8, 8), gray: false, quality: 90))
    }

    /// The `av1C` box's chroma subsampling flags (x, y): (1, 1) is 4:2:0, (0, 0) is 4:4:4.
    static func av1Subsampling(_ bytes: [UInt8]) -> (x: Int, y: Int)? {
        let tag = Array("av1C".utf8)
        guard let start = (0..<max(0, bytes.count - 7)).first(where: { bytes[$0..<$0 + 4].elementsEqual(tag) }) else { return nil }
        let flags = bytes[start + 6] // marker and version, profile and level, then these
        return (Int(flags >> 3) & 1, Int(flags >> 2) & 1)
    }

    /// Through the command as a user writes it: each format's options reach the file (checked in
    /// its bytes) and the picture comes back as it went in.
    @Test func theSaveStageRoundTripsAVIFWebPPalettePNGJPEGAndGIF() throws {
        let directory = try TemporaryDirectory()
        let gradient = try directory.write(Synthetic.gradient(64, 48).encoded(as: .png), to: "gradient.png")
        let translucent = try directory.write(Self.withAlpha().encoded(as: .png), to: "alpha.png")
        let few = try directory.write(Self.fourColors(alpha: true).encoded(as: .png), to: "few.png")
        func run(_ pipeline: String, _ input: String, _ name: String) throws -> (bytes: [UInt8], image: Image) {
            let output = directory.file(name)
            let result = try CommandRunner.run(["run", "-e", pipeline, input, "-o", output])
            #expect(result.status == 0, "\(pipeline): \(result.standardError)")
            return (try [UInt8](Data(contentsOf: URL(fileURLWithPath: output))), try Image.load(path: output))
        }
        let original = try Image.load(path: gradient), alpha = try Image.load(path: translucent), four = try Image.load(path: few)

        let avif444 = try run("save quality=90 chroma=444", gradient, "444.avif")
        #expect(avif444.bytes[4..<12].elementsEqual(Array("ftypavif".utf8)))
        #expect(Self.av1Subsampling(avif444.bytes).map { [$0.x, $0.y] } == [0, 0], "AVIF chroma=444")
        #expect(Self.maxDifference(original, avif444.image) <= 8, "AVIF quality 90")
        let avif420 = try run("save quality=50 speed=8", gradient, "420.avif")
        #expect(Self.av1Subsampling(avif420.bytes).map { [$0.x, $0.y] } == [1, 1], "AVIF 4:2:0 below quality 90")
        #expect(Self.maxDifference(original, avif420.image) <= 24 && avif420.bytes.count < avif444.bytes.count)
        let avifLossless = try run("save lossless=true", translucent, "lossless.avif")
        #expect(Self.maxDifference(alpha, avifLossless.image) == 0, "lossless AVIF")

        let webp = try run("save lossless=true", translucent, "lossless.webp")
        #expect(webp.bytes[12..<16].elementsEqual(Array("VP8X".utf8)) || webp.bytes[12..<16].elementsEqual(Array("VP8L".utf8)))
        #expect(webp.bytes.indices.dropLast(4).contains { webp.bytes[$0..<$0 + 4].elementsEqual(Array("VP8L".utf8)) }, "a VP8L (lossless) bitstream")
        #expect(webp.image.hasAlpha && Self.maxDifference(alpha, webp.image) == 0, "lossless WebP, pixel for pixel")

        let palette = try run("save palette=true colors=16", few, "palette.png")
        #expect(palette.bytes[25] == 3, "IHDR color type 3: indexed")
        #expect(palette.image.hasAlpha && Self.maxDifference(four, palette.image) == 0, "palette PNG of five colors")

        for (pipeline, name) in [("save quality=95", "default.jpg"), ("save quality=80 chroma=444", "444.jpg")] {
            let jpeg = try run(pipeline, gradient, name)
            #expect(JPEGFrame(jpeg.bytes)?.sampling == [0x11, 0x11, 0x11], "\(pipeline): 4:4:4 in the frame header")
            #expect(Self.maxDifference(original, jpeg.image) <= 6, "\(pipeline)")
        }
        #expect(JPEGFrame(try run("save quality=80", gradient, "420.jpg").bytes)?.sampling == [0x22, 0x11, 0x11])

        let gif = try run("save", few, "few.gif")
        #expect(gif.bytes.prefix(6).elementsEqual(Array("GIF89a".utf8)))
        #expect(gif.image.pixel(x: 1, y: 1).alpha == 0 && Self.maxDifference(four, gif.image) == 0, "GIF of five colors")
    }

    /// 16-bit PNG samples are rounded to 8 bits (docs/formats.md): 0x00FF is 0.99 of 255 and
    /// comes out 1, 0xFEFF is 253.99 and comes out 254 (the high byte would give 0 and 254).
    @Test func sixteenBitPNGIsRounded() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("grey16.png")
        let samples = [0x0000, 0x00FF, 0x0100, 0x7F80, 0x80FF, 0xC0C0, 0xFEFF, 0xFFFF]
        try ColorReference.python("""
            from PIL import Image
            im = Image.new('I;16', (\(samples.count), 1))
            for i, v in enumerate([\(samples.map(String.init).joined(separator: ","))]):
                im.putpixel((i, 0), v)
            im.save('\(path)')
            """)
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(bytes[24] == 16, "IHDR: 16 bits a sample")
        let decoded = try Image.load(path: path)
        #expect((0..<samples.count).map { Int(decoded.pixel(x: $0, y: 0).green) } == samples.map { ($0 * 255 + 32_767) / 65_535 })
        #expect(decoded.pixel(x: 1, y: 0).green == 1)
    }

    @Test func heicIsReadThroughLibheif() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("phone.heic")
        let original = try Synthetic.gradient(64, 48)
        try HEICWriter.write(original, to: path)
        let header = try ImageHeader.read(path: path)
        #expect(header.format == .heif && header.storedSize == Size(64, 48))
        let decoded = try Image.load(path: path)
        #expect(decoded.size == Size(64, 48) && Self.maxDifference(original, decoded) <= 12)
    }

    @Test func unreadableFormatsNameThemselves() throws {
        for (bytes, words) in [([0x00, 0x00, 0x00, 0x0C, 0x6A, 0x50, 0x20, 0x20, 0x0D, 0x0A, 0x87, 0x0A] + [UInt8](repeating: 0, count: 20), "JPEG 2000"),
                               (Array("8BPS".utf8) + [UInt8](repeating: 0, count: 20), "Photoshop PSD"),
                               (Array("%PDF-1.7\n".utf8) + [UInt8](repeating: 0, count: 20), "PDF: a document"),
                               ([0xFF, 0x4F, 0xFF, 0x51] + [UInt8](repeating: 0, count: 20), "JPEG 2000"),
                               ([0x76, 0x2F, 0x31, 0x01, 0x02, 0x00, 0x00, 0x00] + [UInt8](repeating: 0, count: 20), "OpenEXR")] as [([UInt8], String)] {
            #expect(throws: ImageError.self) { try Image.decode(bytes) }
            do { _ = try Image.decode(bytes) } catch let error as ImageError {
                #expect(error.kind == .unsupported && error.reason.contains(words), "\(error)")
            }
        }
        // JPEG XL is read (Codecs/JXL/): its signatures followed by nothing sensible are damage.
        for bytes in [[0xFF, 0x0A, 0xFA, 0x7F] + [UInt8](repeating: 0, count: 20),
                      [0x00, 0x00, 0x00, 0x0C, 0x4A, 0x58, 0x4C, 0x20, 0x0D, 0x0A, 0x87, 0x0A] + [UInt8](repeating: 0, count: 20)] as [[UInt8]] {
            do {
                _ = try Image.decode(bytes)
                Issue.record("JPEG XL garbage decoded")
            } catch let error as ImageError {
                #expect(error.kind == .corrupt, "\(error)")
            }
        }
    }

    @Test func unwritableExtensionsSayWhatCanBeWritten() throws {
        for (name, words) in [("x.heic", "write .avif"), ("x.xyz", "cannot tell the format of 'x.xyz'")] {
            #expect(throws: StageError.self) { try Save().target(in: RunContext(output: name)) }
            do { _ = try Save().target(in: RunContext(output: name)) } catch let error as StageError {
                #expect(error.message.contains(words) && error.message.contains("png, jpeg, webp, avif, jxl, gif, tiff, bmp"), "\(error.message)")
            }
        }
    }
}
