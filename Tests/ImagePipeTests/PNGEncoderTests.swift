import Foundation
import Testing
@testable import ImagePipe
@testable import ImagePipeCore
import TestSupport

@Suite struct PNGEncoderTests {
    static let photo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Samples/images/leaf.jpg").path

    /// libdeflate with adaptive filters against gdk-pixbuf's zlib at the same level, on a photo:
    /// within ±5 % in size, and the same pixels.
    @Test(arguments: [false, true])
    func sameSizeClassAsZlibAtTheSameLevel(alpha: Bool) throws {
        var picture = try Image.load(path: Self.photo).scaled(to: Size(512, 320))
        if alpha { picture = try Image.canvas(size: Size(512, 320), background: .transparent, placing: picture, at: (0, 0)) }
        let ours = try picture.encoded(as: .png, options: SaveOptions(compression: 6))
        let zlib = try picture.encodedByGdkPixbuf(type: "png", settings: [("compression", "6")])
        let ratio = Double(ours.count) / Double(zlib.count)
        #expect(ratio > 0.95 && ratio < 1.05, "libdeflate \(ours.count) bytes, zlib \(zlib.count) bytes")
        let back = try Image.decode(ours)
        #expect(back.hasAlpha == alpha)
        for (x, y) in [(0, 0), (255, 160), (511, 319)] { #expect(back.pixel(x: x, y: y) == picture.pixel(x: x, y: y)) }
        print("PNG, \(alpha ? "RGBA" : "RGB") 512x320 photo: libdeflate \(ours.count) bytes, gdk-pixbuf zlib \(zlib.count) bytes (\(String(format: "%.3f", ratio)))")
    }

    /// A picture above the streaming threshold goes through zlib a strip at a time, in several
    /// IDAT chunks, and decodes to the same pixels as the whole-buffer path gives.
    @Test(arguments: [false, true])
    func largePicturesStreamToTheSamePixels(alpha: Bool) throws {
        let side = 1400 // 1400 × 1400 × 3 > 4 MiB of filtered rows
        #expect(side * (side * 3 + 1) > PNGEncoder.streamingThreshold)
        let picture = try Synthetic.image(side, side, alpha: alpha) { x, y in
            Color(red: UInt8((x * 7 + y * 13) & 255), green: UInt8((x ^ y) & 255), blue: UInt8((x * y) >> 9 & 255), alpha: UInt8((x + y) & 255))
        }
        let png = try picture.encoded(as: .png)
        let chunks = Self.chunkTypes(png)
        #expect(chunks.filter { $0 == "IDAT" }.count > 1, "\(chunks)")
        #expect(chunks.first == "IHDR" && chunks.last == "IEND")
        let back = try Image.decode(png)
        #expect(back.size == picture.size && back.hasAlpha == alpha)
        for y in stride(from: 0, to: side, by: 97) {
            #expect(Array(back.row(y)) == Array(picture.row(y)), "row \(y)")
        }
        #expect(Array(back.row(side - 1)) == Array(picture.row(side - 1)))
    }

    /// Cancelled, both paths (whole buffer and streamed) throw the cancellation's own error, the
    /// one every other check of a stopped run throws.
    @Test(arguments: [64, 1400])
    func aCancelledEncodeThrowsTheCancellationsError(side: Int) throws {
        let picture = try Synthetic.gradient(side, side)
        let cancellation = Cancellation()
        cancellation.cancel()
        let error = try #require(throws: ImageError.self) { try PNGEncoder.encode(picture, compression: 6, cancellation: cancellation) }
        #expect(error == Cancellation.stopped(path: nil))
        #expect(throws: ImageError.self) { try cancellation.check(path: nil) }
        #expect(try PNGEncoder.encode(picture, compression: 6, cancellation: Cancellation()).count > 8)
    }

    static func chunkTypes(_ png: [UInt8]) -> [String] {
        var types: [String] = [], offset = 8
        while offset + 8 <= png.count {
            let length = png[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            types.append(String(decoding: png[offset + 4..<offset + 8], as: UTF8.self))
            offset += 12 + length
        }
        return types
    }
}
