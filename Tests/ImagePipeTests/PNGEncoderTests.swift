import Foundation
import Testing
@testable import ImagePipe
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
}
