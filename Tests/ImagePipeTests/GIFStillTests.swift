import Foundation
@testable import ImagePipe
@testable import ImagePipeCore
import Testing
import TestSupport

/// A still GIF, or an animation's first frame taken alone, is decoded by giflib and composed
/// as the frames of an animation are: the same pixels as the animation's frame 0, and as
/// Pillow shows the first frame.
@Suite struct GIFStillTests {
    @Test func theFirstFrameIsTheAnimationsFrameZeroAndPillows() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("offset.gif")
        // A first frame smaller than the screen, offset, with a transparent index; then more frames.
        try ColorReference.python("""
            from PIL import Image
            frames = []
            for i in range(3):
                im = Image.new('P', (40, 30), 0)
                im.putpalette([0, 0, 0, 200, 30, 30, 30, 200, 30, 30, 30, 200] + [0] * 756)
                for y in range(30):
                    for x in range(40):
                        im.putpixel((x, y), 1 + (x // 10 + y // 10 + i) % 3 if (x + y) % 7 else 0)
                frames.append(im)
            frames[0].save('\(path)', save_all=True, append_images=frames[1:], transparency=0, duration=100, loop=0, disposal=2)
            """)
        let still = try Image.load(path: path)
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        let animation = try #require(try AnimationDecoding.decoder(for: bytes, format: .gif, failOnDamage: true, path: path))
        let first = try #require(try animation.next()).image
        #expect(still.size == first.size && still.size == Size(40, 30))
        var differing = 0
        for y in 0..<still.height { for x in 0..<still.width where still.pixel(x: x, y: y) != first.pixel(x: x, y: y) { differing += 1 } }
        #expect(differing == 0)
        #expect(still.pixel(x: 0, y: 0).alpha == 0, "the transparent index leaves the canvas transparent")
        #expect(still.pixel(x: 1, y: 0) == Color(red: 200, green: 30, blue: 30), "index 1")
        #expect(still.pixel(x: 11, y: 0) == Color(red: 30, green: 200, blue: 30), "index 2")
        // Pillow's first frame, pixel for pixel.
        let pillow = directory.file("pillow.png")
        try ColorReference.python("from PIL import Image\nImage.open('\(path)').convert('RGBA').save('\(pillow)')")
        let reference = try Image.load(path: pillow)
        var unlike = 0
        for y in 0..<still.height {
            for x in 0..<still.width {
                let (a, b) = (still.pixel(x: x, y: y), reference.pixel(x: x, y: y))
                if a.alpha != b.alpha || a.alpha > 0 && a != b { unlike += 1 }
            }
        }
        #expect(unlike == 0)
    }

    /// A frame whose data ends with its end code before every pixel came is a short frame, which
    /// GIF allows: the rest stays as the canvas held it (the row the code ends in too: giflib does
    /// not say how far into it the data went). A frame whose data just stops is cut.
    @Test func aShortFrameDecodesAndACutOneIsRefused() throws {
        func little16(_ value: Int) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8)] }
        let header = Array("GIF89a".utf8) + little16(30) + little16(20) + [0x80, 0, 0, 0, 0, 0, 0xFF, 0xFF, 0xFF]
        // Code size 2: clear (4), white (1), end (5) as 3-bit codes, least significant bit first: 0x4C 0x01.
        // A frame one pixel wide, so that its first row is whole.
        let short = header + [0x2C] + little16(0) + little16(0) + little16(1) + little16(20) + [0, 0x02, 0x02, 0x4C, 0x01, 0x00, 0x3B]
        let image = try Image.decode(short)
        #expect(image.size == Size(30, 20))
        #expect(image.pixel(x: 0, y: 0) == Color(red: 255, green: 255, blue: 255), "the one pixel the data holds")
        #expect(image.pixel(x: 0, y: 1).alpha == 0 && image.pixel(x: 5, y: 5).alpha == 0, "the rest, as the canvas held it")
        // The same data without its end code and trailer: cut.
        let cut = header + [0x2C] + little16(0) + little16(0) + little16(1) + little16(20) + [0, 0x02, 0x01, 0x4C]
        #expect(throws: ImageError.self) { try Image.decode(cut) }
        #expect(try Image.decode(cut, options: LoadOptions(failOn: .none)).size == Size(30, 20))
    }
}
