import Foundation
import Testing
import ImagePipe
import TestSupport

/// A TIFF's orientation tag is read into the plan as JPEG's EXIF orientation is, and the decode
/// turns the picture by that same reading: the plan's sizes are the run's, nothing is stretched,
/// and every tag shows the picture as the TIFF specification (and Pillow's exif_transpose) says.
@Suite struct TIFFOrientationTests {
    static let red = Color(red: 255, green: 0, blue: 0), green = Color(red: 0, green: 255, blue: 0)

    /// 60x40 stored: a red top-left corner, a green top-right corner, blue elsewhere; with
    /// orientation `tag` (Pillow writes it; gdk-pixbuf's saver cannot).
    private func tiff(orientation tag: Int, in directory: TemporaryDirectory) throws -> String {
        let path = directory.file("o\(tag).tif")
        try ColorReference.python("""
            from PIL import Image
            im = Image.new('RGB', (60, 40), (0, 0, 255))
            im.paste((255, 0, 0), (0, 0, 20, 14))
            im.paste((0, 255, 0), (40, 0, 60, 14))
            im.save('\(path)', tiffinfo={274: \(tag)})
            """)
        return path
    }

    /// Where the stored top-left and top-right corners are shown, for each tag (EXIF's meaning).
    static let shown: [Int: (red: String, green: String)] = [
        1: ("TL", "TR"), 2: ("TR", "TL"), 3: ("BR", "BL"), 4: ("BL", "BR"),
        5: ("TL", "BL"), 6: ("TR", "BR"), 7: ("BR", "TR"), 8: ("BL", "TL"),
    ]

    private func corner(_ name: String, of image: Image) -> Color {
        image.pixel(x: name.hasSuffix("L") ? 2 : image.width - 3, y: name.hasPrefix("T") ? 2 : image.height - 3)
    }

    @Test(arguments: 1...8)
    func everyTagIsPlannedAndShownAsTheSpecificationSays(tag: Int) throws {
        let directory = try TemporaryDirectory()
        let path = try tiff(orientation: tag, in: directory)
        let turned = tag >= 5
        let explain = try CommandRunner.run(["explain", "-e", "fit 30x30", path], in: directory.path)
        #expect(explain.standardOutput.contains(turned ? "40x60" : "60x40"), "\(explain.standardOutput)")
        let result = try CommandRunner.run(["run", "-e", "fit 100x100", path, "-o", "out.png"], in: directory.path)
        #expect(result.status == 0, "\(result.standardError)")
        let out = try Image.load(path: directory.file("out.png"))
        #expect(out.size == (turned ? Size(67, 100) : Size(100, 67)))
        let (red, green) = try #require(Self.shown[tag])
        #expect(Synthetic.close(corner(red, of: out), Self.red, tolerance: 8), "tag \(tag): \(red) is \(corner(red, of: out))")
        #expect(Synthetic.close(corner(green, of: out), Self.green, tolerance: 8), "tag \(tag): \(green) is \(corner(green, of: out))")
    }

    @Test(arguments: 1...8)
    func autoOrientFalseKeepsTheStoredPicture(tag: Int) throws {
        let directory = try TemporaryDirectory()
        let path = try tiff(orientation: tag, in: directory)
        let result = try CommandRunner.run(["run", "-e", "load auto-orient=false | fit 30x20", path, "-o", "out.png"], in: directory.path)
        #expect(result.status == 0, "\(result.standardError)")
        let out = try Image.load(path: directory.file("out.png"))
        #expect(out.size == Size(30, 20))
        #expect(Synthetic.close(corner("TL", of: out), Self.red, tolerance: 8) && Synthetic.close(corner("TR", of: out), Self.green, tolerance: 8),
                "tag \(tag): \(corner("TL", of: out)) \(corner("TR", of: out))")
    }
}
