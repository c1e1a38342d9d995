import Foundation
import Testing
import ImagePipe
import TestSupport

/// A PNG's eXIf chunk and a WebP's EXIF chunk turn the picture as a JPEG's EXIF does (libvips'
/// autorotate and Pillow's exif_transpose apply both): planned from the header, turned by the
/// decode, and the same pixels as Pillow's exif_transpose gives, for every orientation.
@Suite struct ExifOrientationFormatsTests {
    @Test(arguments: ["png", "webp"], 1...8)
    func everyOrientationIsShownAsPillowShowsIt(format: String, tag: Int) throws {
        let directory = try TemporaryDirectory()
        let file = directory.file("o.\(format)")
        // 60x40 with four colored corners, lossless; exif_transpose's picture as the reference.
        try ColorReference.python("""
            from PIL import Image, ImageOps
            im = Image.new('RGB', (60, 40), (0, 0, 255))
            im.paste((255, 0, 0), (0, 0, 20, 14))
            im.paste((0, 255, 0), (40, 0, 60, 14))
            im.paste((255, 255, 0), (0, 26, 20, 40))
            exif = Image.Exif()
            exif[0x0112] = \(tag)
            im.save('\(file)', exif=exif.tobytes(), **({'lossless': True} if '\(format)' == 'webp' else {}))
            ImageOps.exif_transpose(Image.open('\(file)')).convert('RGB').save('\(directory.file("expected.png"))')
            """)
        let turned = tag >= 5
        let explain = try CommandRunner.run(["explain", "-e", "load", file, "-o", "out.png"], in: directory.path)
        #expect(explain.standardOutput.contains("→ \(turned ? "40x60" : "60x40")"), "\(explain.standardOutput)")
        // From the file, and from memory (standard input).
        let result = try CommandRunner.run(["run", "-e", "load", file, "-o", "out.png"], in: directory.path)
        #expect(result.status == 0, "\(result.standardError)")
        let piped = try CommandRunner.run(["run", "-e", "load", "-", "-o", "piped.png"], in: directory.path,
                                          input: [UInt8](Data(contentsOf: URL(fileURLWithPath: file))))
        #expect(piped.status == 0, "\(piped.standardError)")
        let expected = try Image.load(path: directory.file("expected.png"))
        for name in ["out.png", "piped.png"] {
            let made = try Image.load(path: directory.file(name))
            #expect(made.size == expected.size, "\(name)")
            guard made.size == expected.size else { continue }
            let differing = (0..<made.height).flatMap { y in (0..<made.width).map { x in (x, y) } }
                .filter { made.pixel(x: $0.0, y: $0.1) != expected.pixel(x: $0.0, y: $0.1) }.count
            #expect(differing == 0, "\(format) orientation \(tag), \(name): \(differing) pixels differ")
        }
        // auto-orient=false keeps the stored picture.
        let stored = try CommandRunner.run(["run", "-e", "load auto-orient=false", file, "-o", "stored.png"], in: directory.path)
        #expect(stored.status == 0)
        #expect(try Image.load(path: directory.file("stored.png")).size == Size(60, 40))
    }
}
