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
        let decoded = try Image.decode(original.encoded(as: format), options: LoadOptions(allowedFormats: Set(SourceFormat.allCases)))
        #expect(decoded.hasAlpha, "\(format) kept alpha")
        // libtiff hands gdk-pixbuf premultiplied color: half-transparent pixels come back within 1.
        #expect(Self.maxDifference(original, decoded) <= (format == .tiff ? 1 : 0), "\(format)")
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

    /// The sampling factors of the frame header's components, and the frame's marker.
    static func jpegFrame(_ bytes: [UInt8]) -> (marker: UInt8, sampling: [UInt8])? {
        var i = 2
        while i + 4 < bytes.count, bytes[i] == 0xFF {
            let marker = bytes[i + 1], length = Int(bytes[i + 2]) << 8 | Int(bytes[i + 3])
            if [0xC0, 0xC1, 0xC2].contains(marker) {
                let count = Int(bytes[i + 9])
                return (marker, (0..<count).map { bytes[i + 11 + $0 * 3] })
            }
            i += 2 + length
        }
        return nil
    }

    @Test func jpegChromaProgressiveAndHuffmanOptions() throws {
        let image = try Synthetic.gradient(64, 48)
        func frame(_ options: SaveOptions) throws -> (marker: UInt8, sampling: [UInt8])? { Self.jpegFrame(try image.encoded(as: .jpeg, options: options)) }
        #expect(try frame(SaveOptions())?.sampling == [0x11, 0x11, 0x11], "4:4:4 at the default quality 90")
        #expect(try frame(SaveOptions(quality: 80))?.sampling == [0x22, 0x11, 0x11], "4:2:0 below 90")
        #expect(try frame(SaveOptions(chroma: .c422))?.sampling == [0x21, 0x11, 0x11])
        #expect(try frame(SaveOptions(quality: 100, chroma: .c420))?.sampling == [0x22, 0x11, 0x11])
        #expect(try frame(SaveOptions())?.marker == 0xC0)
        #expect(try frame(SaveOptions(progressive: true))?.marker == 0xC2)
        let optimized = try image.encoded(as: .jpeg), standard = try image.encoded(as: .jpeg, options: SaveOptions(optimizeCoding: false))
        #expect(optimized.count < standard.count)
        #expect(Self.maxDifference(try Image.decode(optimized), try Image.decode(standard)) == 0, "the same pixels")
        let decoded = try Image.decode(optimized)
        #expect(Self.maxDifference(image, decoded) <= 4)
    }

    @Test func heicIsReadThroughLibheif() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("phone.heic")
        let original = try Synthetic.gradient(64, 48)
        try HEICWriter.write(original, to: path)
        let header = try ImageHeader.read(path: path)
        #expect(header.format == "heif" && header.storedSize == Size(64, 48))
        let decoded = try Image.load(path: path)
        #expect(decoded.size == Size(64, 48) && Self.maxDifference(original, decoded) <= 12)
    }

    @Test func unreadableFormatsNameThemselves() throws {
        for (bytes, words) in [([0xFF, 0x0A, 0xFA, 0x7F] + [UInt8](repeating: 0, count: 20), "JPEG XL: no decoder installed"),
                               ([0x00, 0x00, 0x00, 0x0C, 0x6A, 0x50, 0x20, 0x20, 0x0D, 0x0A, 0x87, 0x0A] + [UInt8](repeating: 0, count: 20), "JPEG 2000"),
                               (Array("8BPS".utf8) + [UInt8](repeating: 0, count: 20), "Photoshop PSD"),
                               (Array("%PDF-1.7\n".utf8) + [UInt8](repeating: 0, count: 20), "PDF: a document")] as [([UInt8], String)] {
            #expect(throws: ImageError.self) { try Image.decode(bytes) }
            do { _ = try Image.decode(bytes) } catch let error as ImageError {
                #expect(error.kind == .unsupported && error.reason.contains(words), "\(error)")
            }
        }
    }

    @Test func unwritableExtensionsSayWhatCanBeWritten() throws {
        for (name, words) in [("x.heic", "write .avif"), ("x.jxl", "JPEG XL"), ("x.xyz", "cannot tell the format of 'x.xyz'")] {
            #expect(throws: StageError.self) { try Save().target(in: RunContext(output: name)) }
            do { _ = try Save().target(in: RunContext(output: name)) } catch let error as StageError {
                #expect(error.message.contains(words) && error.message.contains("png, jpeg, webp, avif, gif, tiff, bmp"), "\(error.message)")
            }
        }
    }
}
