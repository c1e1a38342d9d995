import Foundation
import Testing
import ImagePipe
import TestSupport

/// PNG and WebP damage that gdk-pixbuf's loaders turned into a picture without an error: refused
/// under the default `fail=true` (as libvips and Pillow refuse them), taken as decoded with
/// `load fail=false`. Whole files of every PNG kind still decode, and a WebP's pixels are
/// libwebp's, as Pillow decodes them. The files are made in Python, by a writer of their own.
@Suite struct DamagedDataTests {
    static func make(in directory: TemporaryDirectory) throws {
        try ColorReference.python("""
            import zlib, struct
            from PIL import Image
            d = '\(directory.path)'
            im = Image.new('RGB', (61, 37))
            im.putdata([((x * 4) % 256, (y * 7) % 256, (x * y) % 256) for y in range(37) for x in range(61)])
            def png(chunks):
                out = b'\\x89PNG\\r\\n\\x1a\\n'
                for kind, data in chunks:
                    out += struct.pack('>I', len(data)) + kind + data + struct.pack('>I', zlib.crc32(kind + data) & 0xffffffff)
                return out
            ihdr = lambda interlace: struct.pack('>IIBBBBB', 61, 37, 8, 2, 0, 0, interlace)
            rows = lambda img: b''.join(b'\\x00' + img.crop((0, y, img.width, y + 1)).tobytes() for y in range(img.height))
            raw = rows(im)
            good = png([(b'IHDR', ihdr(0)), (b'IDAT', zlib.compress(raw)), (b'IEND', b'')])
            open(d + '/good.png', 'wb').write(good)
            bad = bytearray(zlib.compress(raw)); bad[-1] ^= 0xff  # the Adler-32 at the stream's end
            open(d + '/bad-adler.png', 'wb').write(png([(b'IHDR', ihdr(0)), (b'IDAT', bytes(bad)), (b'IEND', b'')]))
            open(d + '/half-rows.png', 'wb').write(png([(b'IHDR', ihdr(0)), (b'IDAT', zlib.compress(raw[:len(raw) // 2])), (b'IEND', b'')]))
            # Adam7: the seven passes, each its rows of every 8th, 4th or 2nd pixel.
            passes = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]
            data = b''
            for x0, y0, dx, dy in passes:
                xs, ys = range(x0, 61, dx), range(y0, 37, dy)
                if len(xs) == 0 or len(ys) == 0: continue
                for y in ys:
                    data += b'\\x00' + b''.join(bytes(im.getpixel((x, y))) for x in xs)
            open(d + '/interlaced.png', 'wb').write(png([(b'IHDR', ihdr(1)), (b'IDAT', zlib.compress(data)), (b'IEND', b'')]))
            im.convert('1').save(d + '/one-bit.png')
            im.convert('L').convert('I').point(lambda v: v * 257).convert('I;16').save(d + '/sixteen.png')
            im.convert('P').save(d + '/palette.png', transparency=3)
            im.save(d + '/good.webp', quality=80)
            webp = open(d + '/good.webp', 'rb').read()
            assert webp[12:16] == b'VP8 '
            size = struct.unpack('<I', webp[16:20])[0]
            cut = webp[20:20 + size * 6 // 10 // 2 * 2]
            body = b'WEBP' + b'VP8 ' + struct.pack('<I', len(cut)) + cut
            open(d + '/vp8-cut.webp', 'wb').write(b'RIFF' + struct.pack('<I', len(body)) + body)
            # Pillow reads the interlaced file as the picture: the writer above is right.
            assert list(Image.open(d + '/interlaced.png').convert('RGB').getdata()) == list(im.getdata())
            """)
    }

    @Test(arguments: [
        ("bad-adler.png", "the PNG's compressed image data is damaged (it fails to inflate, or its check fails) after 36 of its 37 rows"),
        ("half-rows.png", "the PNG's image data ends early after 18 of its 37 rows"),
        ("vp8-cut.webp", "the WebP's image data ends early after 7 of its 37 rows"),
    ])
    func damageIsRefusedAndTakenWhenAskedTo(file: String, reason: String) throws {
        let directory = try TemporaryDirectory()
        try Self.make(in: directory)
        let refused = try CommandRunner.run(["run", "-e", "flip", file, "-o", "out.png"], in: directory.path)
        #expect(refused.status == 1)
        #expect(refused.standardError.contains("\(file): corrupt image: \(reason)"), "\(refused.standardError)")
        #expect(!FileManager.default.fileExists(atPath: directory.file("out.png")))
        // The same file streamed from a pipe (read whole first) is refused alike.
        let piped = try CommandRunner.run(["run", "-e", "flip", "-", "-o", "out.png"], in: directory.path,
                                          input: [UInt8](Data(contentsOf: URL(fileURLWithPath: directory.file(file)))))
        #expect(piped.status == 1 && piped.standardError.contains(reason), "\(piped.standardError)")
        let taken = try CommandRunner.run(["run", "-e", "load fail=false | flip", file, "-o", "out.png"], in: directory.path)
        #expect(taken.status == 0, "\(taken.standardError)")
    }

    @Test func wholeFilesOfEveryKindDecode() throws {
        let directory = try TemporaryDirectory()
        try Self.make(in: directory)
        let reference = try Image.load(path: directory.file("good.png"))
        for file in ["good.png", "interlaced.png", "one-bit.png", "sixteen.png", "palette.png", "good.webp"] {
            let result = try CommandRunner.run(["run", "-e", "flip", file, "-o", "out-\(file).png"], in: directory.path)
            #expect(result.status == 0, "\(file): \(result.standardError)")
        }
        #expect(try PictureComparison(Image.load(path: directory.file("interlaced.png")), reference).identical, "Adam7 decodes to the picture")
        // The WebP's pixels are libwebp's, as Pillow (libwebp too) decodes them.
        try ColorReference.python("""
            from PIL import Image
            Image.open('\(directory.file("good.webp"))').convert('RGB').save('\(directory.file("pillow-webp.png"))')
            """)
        #expect(try PictureComparison(Image.load(path: directory.file("good.webp")), Image.load(path: directory.file("pillow-webp.png"))).identical)
    }
}
