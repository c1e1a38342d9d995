import Foundation
import Testing
import ImagePipe
import TestSupport

/// A PNG's gAMA, cHRM and cICP chunks describe its colors as an ICC profile would: the picture is
/// converted to sRGB as Chromium shows it (a headless screenshot, sRGB out), within 2 levels. The
/// PNG 3 order decides: cICP, then iCCP, then sRGB, then gAMA with cHRM.
@Suite struct PNGColorChunkTests {
    static let files: [(name: String, chunks: String)] = [
        ("gamma-1", "[(b'gAMA', struct.pack('>I', 100000))]"),
        ("gamma-1.8", "[(b'gAMA', struct.pack('>I', 55556))]"),
        ("gamma-chrm", "[(b'gAMA', struct.pack('>I', 45455)), (b'cHRM', struct.pack('>8I', 31270, 32900, 64000, 33000, 21000, 71000, 15000, 6000))]"),
        ("cicp-p3", "[(b'cICP', bytes([12, 13, 0, 1]))]"),
        // sRGB comes before gAMA: the gamma is not applied.
        ("srgb-and-gamma", "[(b'sRGB', bytes([0])), (b'gAMA', struct.pack('>I', 100000))]"),
    ]

    @Test func colorsAreShownAsChromiumShowsThem() throws {
        let chromium = try #require(["/usr/bin/chromium", "/usr/bin/chromium-browser"].first { FileManager.default.isExecutableFile(atPath: $0) },
                                    "no Chromium: make test installs Debian's chromium package")
        let directory = try TemporaryDirectory()
        let list = Self.files.map { "('\($0.name)', \($0.chunks))" }.joined(separator: ", ")
        try ColorReference.python("""
            import struct, zlib
            def png(w, h, rows, chunks):
                def chunk(t, d): return struct.pack('>I', len(d)) + t + d + struct.pack('>I', zlib.crc32(t + d) & 0xffffffff)
                raw = b''.join(b'\\x00' + r for r in rows)
                return (b'\\x89PNG\\r\\n\\x1a\\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', w, h, 8, 2, 0, 0, 0))
                        + b''.join(chunk(t, d) for t, d in chunks) + chunk(b'IDAT', zlib.compress(raw)) + chunk(b'IEND', b''))
            rows = [bytes(v for x in range(64) for v in (x * 4, 255 - x * 4, (x * 8 + y * 32) % 256)) for y in range(8)]
            for name, chunks in [\(list)]:
                open('\(directory.path)/' + name + '.png', 'wb').write(png(64, 8, rows, chunks))
                open('\(directory.path)/' + name + '.html', 'w').write('<html><body style="margin:0;background:#000"><img src="' + name + '.png" style="display:block"></body></html>')
            """)
        for (name, _) in Self.files {
            let shot = try CommandRunner.runProgram(chromium, ["--headless=new", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                                                           "--force-color-profile=srgb", "--window-size=100,20",
                                                           "--screenshot=" + directory.file("\(name)-chromium.png"), "file://" + directory.file("\(name).html")])
            #expect(shot.status == 0, "\(shot.standardError)")
            let run = try CommandRunner.run(["run", "-e", "load", "\(name).png", "-o", "\(name)-ours.png"], in: directory.path)
            #expect(run.status == 0, "\(run.standardError)")
            let browser = try Image.load(path: directory.file("\(name)-chromium.png")), ours = try Image.load(path: directory.file("\(name)-ours.png"))
            var largest = 0
            for y in 0..<8 {
                for x in 0..<64 {
                    let a = browser.pixel(x: x, y: y), b = ours.pixel(x: x, y: y)
                    largest = max(largest, abs(Int(a.red) - Int(b.red)), abs(Int(a.green) - Int(b.green)), abs(Int(a.blue) - Int(b.blue)))
                }
            }
            #expect(largest <= 2, "\(name): \(largest) levels from Chromium")
        }
        // The profile each describes, by name, in `info`.
        let info = try CommandRunner.run(["info", "gamma-1.png", "cicp-p3.png", "srgb-and-gamma.png"], in: directory.path)
        #expect(info.standardOutput.contains("color profile: PNG gAMA 1 (rgb)"), "\(info.standardOutput)")
        #expect(info.standardOutput.contains("color profile: Display P3 (PNG cICP 12/13) (rgb)"), "\(info.standardOutput)")
        // A picture with no gamma of its own is left as it is: sRGB, or gamma 2.2 near enough.
        let plain = try CommandRunner.run(["info", "srgb-and-gamma.png"], in: directory.path)
        #expect(!plain.standardOutput.contains("gAMA 1 (rgb)"), "\(plain.standardOutput)")
    }

    /// sRGB said the old way, as ImageMagick writes it (`gAMA` 0.45455 with sRGB's primaries and
    /// D65 in `cHRM`, or `gAMA` alone): the pixels are those of the same file without the chunks,
    /// and `compare` calls the two identical. A gamma that is not sRGB's (1.0, 0.5), or sRGB's
    /// gamma with other primaries, is still converted.
    @Test func sRGBSaidWithGammaAndChromaticitiesIsNotConverted() throws {
        let directory = try TemporaryDirectory()
        let sRGB = "struct.pack('>8I', 31270, 32900, 64000, 33000, 30000, 60000, 15000, 6000)"
        let files: [(name: String, chunks: String, converted: Bool)] = [
            ("plain", "[]", false),
            ("imagemagick", "[(b'gAMA', struct.pack('>I', 45455)), (b'cHRM', \(sRGB))]", false),
            ("gamma-alone", "[(b'gAMA', struct.pack('>I', 45455))]", false),
            // libpng's own rounding of 1/2.2, and the edge of its 5% tolerance.
            ("gamma-0.45", "[(b'gAMA', struct.pack('>I', 45000)), (b'cHRM', \(sRGB))]", false),
            ("gamma-0.47", "[(b'gAMA', struct.pack('>I', 47000))]", false),
            ("gamma-0.5", "[(b'gAMA', struct.pack('>I', 50000))]", true),
            ("gamma-1", "[(b'gAMA', struct.pack('>I', 100000)), (b'cHRM', \(sRGB))]", true),
            ("other-green", "[(b'gAMA', struct.pack('>I', 45455)), (b'cHRM', struct.pack('>8I', 31270, 32900, 64000, 33000, 30000, 60300, 15000, 6000))]", true),
        ]
        let list = files.map { "('\($0.name)', \($0.chunks))" }.joined(separator: ", ")
        try ColorReference.python("""
            import struct, zlib
            def chunk(t, d): return struct.pack('>I', len(d)) + t + d + struct.pack('>I', zlib.crc32(t + d) & 0xffffffff)
            # A gray ramp and a colour ramp: the shadows are where a 2.2 curve and sRGB's part most.
            rows = [bytes(v for x in range(64) for v in ((x, x, x) if y == 0 else (x * 4, 255 - x * 4, x * 2))) for y in range(2)]
            raw = b''.join(b'\\x00' + r for r in rows)
            for name, chunks in [\(list)]:
                data = (b'\\x89PNG\\r\\n\\x1a\\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', 64, 2, 8, 2, 0, 0, 0))
                        + b''.join(chunk(t, d) for t, d in chunks) + chunk(b'IDAT', zlib.compress(raw)) + chunk(b'IEND', b''))
                open('\(directory.path)/' + name + '.png', 'wb').write(data)
            """)
        let plain = try Image.load(path: directory.file("plain.png"))
        #expect(plain.pixel(x: 16, y: 0).red == 16, "the ramp as written")
        for file in files.dropFirst() {
            let image = try Image.load(path: directory.file("\(file.name).png"))
            var largest = 0
            for y in 0..<2 {
                for x in 0..<64 {
                    let a = plain.pixel(x: x, y: y), b = image.pixel(x: x, y: y)
                    largest = max(largest, abs(Int(a.red) - Int(b.red)), abs(Int(a.green) - Int(b.green)), abs(Int(a.blue) - Int(b.blue)))
                }
            }
            if file.converted {
                #expect(largest >= 3, "\(file.name): converted, \(largest) levels at most")
            } else {
                #expect(largest == 0, "\(file.name): \(largest) levels from the file without the chunks")
            }
        }
        let compare = try CommandRunner.run(["compare", "plain.png", "imagemagick.png", "--json"], in: directory.path)
        #expect(compare.status == 0 && compare.standardOutput.replacingOccurrences(of: " ", with: "").contains("\"identical\":true"), "\(compare.standardOutput) \(compare.standardError)")
        let info = try CommandRunner.run(["info", "imagemagick.png", "gamma-1.png"], in: directory.path)
        #expect(!info.standardOutput.contains("PNG gAMA 0.45455"), "\(info.standardOutput)")
        #expect(info.standardOutput.contains("PNG gAMA 1 with cHRM"), "\(info.standardOutput)")
    }
}
