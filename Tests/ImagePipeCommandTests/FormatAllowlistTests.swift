import Foundation
import Testing
import ImagePipe
import TestSupport

/// Only vetted formats are decoded by default, recognised by their first bytes whatever the
/// file is called; others only when allowed, and then under the same limits.
@Suite struct FormatAllowlistTests {
    static let svg = #"<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg" width="20" height="10"><rect width="20" height="10" fill="red"/></svg>"#
    static let hugeSVG = #"<svg xmlns="http://www.w3.org/2000/svg" width="100000" height="100000"/>"#
    /// A 2x2 binary PPM.
    static let pnm = Array("P6\n2 2\n255\n".utf8) + [UInt8](repeating: 200, count: 12)
    /// A 2x2 uncompressed true-colour TGA (no signature at all).
    static let tga: [UInt8] = [0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 2, 0, 24, 0] + [UInt8](repeating: 90, count: 12)
    static let xpm = "/* XPM */\nstatic char *x[] = {\"2 1 1 1\", \". c #FF0000\", \"..\"};\n"

    private func setUp() throws -> TemporaryDirectory {
        let directory = try TemporaryDirectory()
        _ = try directory.write(Self.svg, to: "vector.jpg")
        _ = try directory.write(Self.hugeSVG, to: "huge.png")
        _ = try directory.write(Self.pnm, to: "pixels.png")
        _ = try directory.write(Self.tga, to: "targa.jpg")
        _ = try directory.write(Self.xpm, to: "icon.gif")
        _ = try directory.write(Synthetic.gradient(8, 8).encoded(as: .png), to: "good.png")
        return directory
    }

    @Test(arguments: [("vector.jpg", "SVG", "svg"), ("pixels.png", "PNM", "pnm"), ("icon.gif", "XPM", "xpm")])
    func anUnvettedFormatIsRefusedWhateverItsName(file: String, format: String, name: String) throws {
        let directory = try setUp()
        for command in [["run", "-e", "fit 4x4", file, "-o", "out.png"], ["explain", "-e", "fit 4x4", file]] {
            let result = try CommandRunner.run(command, in: directory.path)
            #expect(result.status == 1)
            #expect(result.standardError == "imagepipe: \(file): unsupported format: \(format): not allowed by default; allow it with --allow-format \(name)\n")
        }
        #expect(!FileManager.default.fileExists(atPath: directory.file("out.png")))
        // From standard input as well.
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: directory.file(file))))
        let piped = try CommandRunner.run(["run", "-e", "fit 4x4", "-", "-o", "out.png"], in: directory.path, input: bytes)
        #expect(piped.standardError == "imagepipe: -: unsupported format: \(format): not allowed by default; allow it with --allow-format \(name)\n")
    }

    @Test func allowedFormatsDecodeUnderTheSameLimits() throws {
        let directory = try setUp()
        let allowed = try CommandRunner.run(["run", "-e", "", "vector.jpg", "pixels.png", "targa.jpg", "icon.gif", "--out-dir", "out", "-o", "{stem}.png",
                                             "--allow-format", "svg,pnm", "--allow-format", "tga", "-q"],
                                            in: directory.path, environment: ["IMAGEPIPE_ALLOW_FORMATS": "xpm"])
        #expect(allowed.status == 0, "\(allowed.standardError)")
        #expect(try Image.load(path: directory.file("out/vector.png")).size == Size(20, 10))
        #expect(try Image.load(path: directory.file("out/pixels.png")).size == Size(2, 2))
        #expect(try Image.load(path: directory.file("out/targa.png")).size == Size(2, 2))
        #expect(try Image.load(path: directory.file("out/icon.png")).size == Size(2, 1))
        let huge = try CommandRunner.run(["run", "-e", "", "huge.png", "-o", "out.png", "--allow-format", "svg"], in: directory.path)
        #expect(huge.status == 1)
        #expect(huge.standardError == "imagepipe: huge.png: too large: 100000x100000 is 10000000000 pixels, more than the limit of 178956970; raise the limit with --max-pixels\n")
    }

    @Test func aTGAIsNeverGuessedUnlessAllowed() throws {
        let directory = try setUp()
        let result = try CommandRunner.run(["run", "-e", "", "targa.jpg", "-o", "out.png"], in: directory.path)
        #expect(result.status == 1)
        #expect(result.standardError == "imagepipe: targa.jpg: unsupported format: not a picture format ImagePipe recognizes by its first bytes; it may be a TGA (a format without a signature), which is read only when allowed; allow it with --allow-format tga\n")
    }

    /// With TGA allowed, what starts as another format (a PDF, an EXR, JPEG 2000, FITS) is named
    /// as itself, and what is neither is not handed to the TGA loader.
    @Test func formatsWithSignaturesAreNeverBlamedOnTGA() throws {
        let directory = try TemporaryDirectory()
        let files: [(String, [UInt8], String)] = [
            ("a.pdf", Array("%PDF-1.4\n%\u{00e2}\n".utf8), "PDF: a document, not a picture"),
            ("a.exr", [0x76, 0x2F, 0x31, 0x01, 2, 0, 0, 0] + [UInt8](repeating: 0, count: 24), "OpenEXR: no decoder installed"),
            ("a.jp2", [0, 0, 0, 0x0C, 0x6A, 0x50, 0x20, 0x20, 0x0D, 0x0A, 0x87, 0x0A] + [UInt8](repeating: 0, count: 24), "JPEG 2000: no decoder installed"),
            ("a.fits", Array("SIMPLE  =                    T / conforms to FITS".utf8), "FITS: astronomical data"),
            ("a.txt", Array("just some words, not a picture".utf8), "not a picture format ImagePipe recognizes by its first bytes\n"),
        ]
        for (name, bytes, message) in files {
            _ = try directory.write(bytes, to: name)
            let result = try CommandRunner.run(["run", "-e", "flip", name, "-o", "out.png", "--allow-format", "tga"], in: directory.path)
            #expect(result.status == 1 && result.standardError.contains("\(name): unsupported format: \(message)"), "\(name): \(result.standardError)")
        }
    }

    @Test func aBatchGoesOnPastARefusedFormat() throws {
        let directory = try setUp()
        let result = try CommandRunner.run(["run", "-e", "", "vector.jpg", "good.png", "--out-dir", "out", "-o", "{stem}.png", "-q"], in: directory.path)
        #expect(result.status == 1)
        #expect(result.standardError == "imagepipe: vector.jpg: unsupported format: SVG: not allowed by default; allow it with --allow-format svg\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.file("out")) == ["good.png"])
    }

    @Test func aDirectoryIsSearchedForAllowedFormatsOnly() throws {
        let directory = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: directory.file("in"), withIntermediateDirectories: true)
        _ = try directory.write(Synthetic.gradient(8, 8).encoded(as: .png), to: "in/photo.png")
        _ = try directory.write(Self.svg, to: "in/icon.svg")
        let stock = try CommandRunner.run(["run", "-e", "", "in", "--out-dir", "out", "-o", "{stem}.png", "-q"], in: directory.path)
        #expect(stock.status == 0, "\(stock.standardError)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.file("out")) == ["photo.png"])
        let allowed = try CommandRunner.run(["run", "-e", "", "in", "--out-dir", "out2", "-o", "{stem}.png", "-q", "--allow-format", "svg"], in: directory.path)
        #expect(allowed.status == 0, "\(allowed.standardError)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.file("out2")).sorted() == ["icon.png", "photo.png"])
    }

    @Test func unknownFormatNamesAreUsageErrors() throws {
        let directory = try setUp()
        let result = try CommandRunner.run(["run", "-e", "", "good.png", "-o", "out.png", "--allow-format", "svg,psd"], in: directory.path)
        #expect(result.status == 2)
        #expect(result.standardError.hasPrefix("imagepipe: --allow-format: unknown format 'psd': use one of jpeg, png, webp"))
        let variable = try CommandRunner.run(["run", "-e", "", "good.png", "-o", "out.png"], in: directory.path, environment: ["IMAGEPIPE_ALLOW_FORMATS": "bogus"])
        #expect(variable.status == 2)
        #expect(variable.standardError.hasPrefix("imagepipe: IMAGEPIPE_ALLOW_FORMATS: unknown format 'bogus'"))
    }

    @Test func theLoadStageSaysWhichFormatsAreAllowed() throws {
        let result = try CommandRunner.run(["stages", "load"])
        #expect(result.status == 0)
        #expect(result.standardOutput.contains("formats: jpeg, png, webp, gif, tiff, bmp, avif, heif, jxl; others only with --allow-format (svg, xpm, xbm, tga, icns, ani, qtif, pnm, ico)"),
                "\(result.standardOutput)")
    }

    @Test func sniffingIgnoresTheName() {
        #expect(ImageFormat.sniff(Array("\u{FEFF}  \n<svg>".utf8)) == .svg)
        #expect(ImageFormat.sniff(Array("<!-- a long comment --><svg/>".utf8)) == .svg)
        #expect(ImageFormat.sniff([0x1F, 0x8B, 8, 0]) == .svg, "gzip: librsvg reads svgz")
        #expect(ImageFormat.sniff([0xFF, 0xD8, 0xFF, 0xE0]) == .jpeg)
        #expect(ImageFormat.sniff(Array("RIFF\0\0\0\0ACON".utf8)) == .ani)
        #expect(ImageFormat.sniff(Self.tga) == nil)
        #expect(throws: ImageError(.unsupported, reason: "SVG: not allowed by default", remedy: .allowFormat("svg"))) {
            try Image.decode(Array(Self.svg.utf8))
        }
        #expect(throws: ImageError.self) { try ImageHeader.read(bytes: Array(Self.svg.utf8)) }
        var options = LoadOptions()
        options.allowedFormats.insert(.svg)
        #expect((try? Image.decode(Array(Self.svg.utf8), options: options))?.size == Size(20, 10))
    }
}
