import Foundation
import ImagePipe
import Testing
import TestSupport

/// TIFF read and written through libtiff directly: files from Pillow (and a few made byte by
/// byte here, for what Pillow cannot write) decode as Pillow and NumPy say; what ImagePipe
/// writes Pillow reads back as written; damaged files are refused without costing memory.
@Suite struct TIFFCodecTests {
    // MARK: Helpers

    /// Runs Pillow and NumPy (Debian's Python, which has them).
    static func pillow(_ script: String) throws {
        try ColorReference.python("from PIL import Image\nimport numpy as np\n" + script)
    }

    static func read(_ path: String) throws -> [UInt8] { Array(try Data(contentsOf: URL(fileURLWithPath: path))) }

    /// The picture's pixels, rows after one another, as many bytes a pixel as it has channels.
    static func bytes(of image: Image) -> [UInt8] { (0..<image.height).flatMap { Array(image.row($0)) } }

    /// How many samples differ by more than `tolerance`, and the largest difference.
    static func difference(_ a: [UInt8], _ b: [UInt8]) -> Int {
        guard a.count == b.count else { return Int.max }
        return zip(a, b).map { abs(Int($0) - Int($1)) }.max() ?? 0
    }

    /// A random picture of `mode` from a seeded generator, saved by Pillow with `options`, and
    /// its pixels as Pillow holds them (`convert` to RGB or RGBA) in `name`.raw.
    static func pillowFile(_ directory: TemporaryDirectory, name: String, mode: String, size: (Int, Int) = (37, 23),
                           save options: String = "", convert: String = "RGB") throws -> (tiff: String, raw: [UInt8]) {
        let tiff = directory.file("\(name).tif"), raw = directory.file("\(name).raw")
        let channels = ["L": 1, "RGB": 3, "RGBA": 4, "CMYK": 4][mode] ?? 3
        try pillow("""
            rng = np.random.default_rng(7)
            data = rng.integers(0, 256, size=(\(size.1), \(size.0), \(channels)), dtype=np.uint8)
            im = Image.fromarray(data[:, :, 0] if \(channels) == 1 else data, \(channels == 4 && mode == "CMYK" ? "'CMYK'" : "None"))
            im.save('\(tiff)'\(options.isEmpty ? "" : ", " + options))
            open('\(raw)', 'wb').write(np.asarray(Image.open('\(tiff)').convert('\(convert)')).tobytes())
            """)
        return (tiff, try read(raw))
    }

    /// A TIFF made byte by byte: the strips' data after the 8-byte header, then the directory
    /// (StripOffsets and StripByteCounts added, or `byteCounts` given), then values that do not
    /// fit in their entries. Every value is SHORT (type 3) when it fits, else LONG.
    static func handMade(bigEndian: Bool = false, tags: [UInt16: [UInt32]], strips: [[UInt8]], byteCounts: [UInt32]? = nil) -> [UInt8] {
        func number(_ value: UInt32, _ size: Int) -> [UInt8] {
            let little = (0..<size).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
            return bigEndian ? little.reversed() : little
        }
        var file: [UInt8] = bigEndian ? [0x4D, 0x4D, 0x00, 0x2A] : [0x49, 0x49, 0x2A, 0x00]
        var offsets: [UInt32] = []
        var data: [UInt8] = []
        for strip in strips {
            offsets.append(UInt32(8 + data.count))
            data += strip
        }
        if data.count % 2 == 1 { data.append(0) }
        let directory = 8 + data.count
        file += number(UInt32(directory), 4) + data
        var all = tags
        all[273] = offsets
        all[279] = byteCounts ?? strips.map { UInt32($0.count) }
        let sorted = all.sorted { $0.key < $1.key }
        var outOfLine: [UInt8] = []
        let outStart = directory + 2 + 12 * sorted.count + 4
        var entries: [UInt8] = number(UInt32(sorted.count), 2)
        for (tag, values) in sorted {
            let long = tag == 273 || tag == 279 || values.contains { $0 > 0xFFFF }
            let size = long ? 4 : 2
            entries += number(UInt32(tag), 2) + number(long ? 4 : 3, 2) + number(UInt32(values.count), 4)
            let packed = values.flatMap { number($0, size) }
            if packed.count <= 4 {
                entries += packed + [UInt8](repeating: 0, count: 4 - packed.count)
            } else {
                entries += number(UInt32(outStart + outOfLine.count), 4)
                outOfLine += packed
            }
        }
        return file + entries + number(0, 4) + outOfLine
    }

    /// The tags of an uncompressed picture of one strip.
    static func plainTags(width: Int, height: Int, bits: Int, samples: Int, photometric: Int) -> [UInt16: [UInt32]] {
        [256: [UInt32(width)], 257: [UInt32(height)], 258: [UInt32](repeating: UInt32(bits), count: samples), 259: [1],
         262: [UInt32(photometric)], 277: [UInt32(samples)], 278: [UInt32(height)]]
    }

    // MARK: Reading what Pillow writes

    @Test(arguments: ["None", "'tiff_lzw'", "'tiff_adobe_deflate'", "'packbits'"])
    func rgbIsReadAsThreeChannelsExactly(compression: String) throws {
        let directory = try TemporaryDirectory()
        let (tiff, raw) = try Self.pillowFile(directory, name: "rgb", mode: "RGB", save: "compression=\(compression)")
        let decoded = try Image.decode(Self.read(tiff))
        #expect(!decoded.hasAlpha, "an opaque RGB TIFF has no alpha")
        #expect(decoded.size == Size(37, 23))
        #expect(Self.bytes(of: decoded) == raw)
    }

    @Test func unassociatedAlphaIsKeptAsItIs() throws {
        let directory = try TemporaryDirectory()
        let (tiff, raw) = try Self.pillowFile(directory, name: "rgba", mode: "RGBA", convert: "RGBA")
        let decoded = try Image.decode(Self.read(tiff))
        #expect(decoded.hasAlpha)
        // Color under partial alpha unchanged: nothing was multiplied or divided.
        #expect(Self.bytes(of: decoded) == raw)
    }

    @Test func associatedAlphaIsDividedOut() throws {
        // (200, 100, 50) at alpha 128, multiplied: what ExtraSamples = 1 (associated) means.
        var tags = Self.plainTags(width: 2, height: 1, bits: 8, samples: 4, photometric: 2)
        tags[338] = [1]
        let strip: [UInt8] = [100, 50, 25, 128, 0, 0, 0, 0]
        let decoded = try Image.decode(Self.handMade(tags: tags, strips: [strip]))
        let pixel = decoded.pixel(x: 0, y: 0)
        #expect(decoded.hasAlpha && pixel.alpha == 128)
        #expect(Synthetic.close(pixel, Color(red: 200, green: 100, blue: 50, alpha: 128), tolerance: 1), "\(pixel)")
        #expect(decoded.pixel(x: 1, y: 0) == Color(red: 0, green: 0, blue: 0, alpha: 0))
        // The same samples as unassociated alpha are kept as they are.
        tags[338] = [2]
        #expect(try Image.decode(Self.handMade(tags: tags, strips: [strip])).pixel(x: 0, y: 0) == Color(red: 100, green: 50, blue: 25, alpha: 128))
    }

    @Test func grayIsReadAsGrayAndSaysSo() throws {
        let directory = try TemporaryDirectory()
        let (tiff, raw) = try Self.pillowFile(directory, name: "gray", mode: "L", save: "compression='tiff_adobe_deflate'")
        let decoded = try Image.decode(Self.read(tiff))
        #expect(!decoded.hasAlpha && decoded.metadata.grayOnly)
        #expect(Self.bytes(of: decoded) == raw)
    }

    @Test func minIsWhiteGrayIsTurnedRound() throws {
        let strip: [UInt8] = [0, 255, 10, 200]
        let tiff = Self.handMade(tags: Self.plainTags(width: 4, height: 1, bits: 8, samples: 1, photometric: 0), strips: [strip])
        let decoded = try Image.decode(tiff)
        #expect((0..<4).map { decoded.pixel(x: $0, y: 0).red } == [255, 0, 245, 55])
        #expect(decoded.pixel(x: 2, y: 0).green == 245 && decoded.pixel(x: 2, y: 0).blue == 245)
    }

    @Test func sixteenBitGrayIsRoundedAsNumPyRounds() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("gray16.tif"), expected = directory.file("gray16.raw")
        // Every step of 0x0101 plus the values either side of a rounding edge.
        try Self.pillow("""
            values = np.array([0x8100, 0x00FF, 0xFF00, 0x80FF, 0x0080, 65535, 0, 0x8080] + list(range(0, 65536, 257)), dtype=np.uint16)
            values = values[:256].reshape(8, 32)
            Image.fromarray(values, 'I;16').save('\(path)')
            rounded = (values.astype(np.uint64) * 255 + 32767) // 65535
            open('\(expected)', 'wb').write(rounded.astype(np.uint8).tobytes())
            """)
        let decoded = try Image.decode(Self.read(path))
        let gray = Self.bytes(of: decoded).enumerated().filter { $0.offset % 3 == 0 }.map(\.element)
        #expect(gray == (try Self.read(expected)))
        // 0x8100 is nearer 128 (0x8080) than 129 (0x8181): its high byte says 129; 0x00FF is nearer 1 than 0.
        #expect(decoded.pixel(x: 0, y: 0).red == 128 && decoded.pixel(x: 1, y: 0).red == 1)
        #expect(decoded.metadata.grayOnly)
    }

    @Test(arguments: [false, true])
    func sixteenBitRGBIsRoundedInEitherByteOrder(bigEndian: Bool) throws {
        // Rounded, not cut to the high byte: 0x8100 → 128 (its high byte 129), 0x00FF → 1 (0), 0xFF00 → 254 (255).
        let values: [UInt16] = [0x8100, 0x00FF, 0xFF00, 0x7F80, 0xFFFF, 0x0000]
        let strip = values.flatMap { bigEndian ? [UInt8($0 >> 8), UInt8($0 & 0xFF)] : [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
        let tiff = Self.handMade(bigEndian: bigEndian, tags: Self.plainTags(width: 2, height: 1, bits: 16, samples: 3, photometric: 2),
                                 strips: [strip])
        let decoded = try Image.decode(tiff)
        #expect(!decoded.hasAlpha)
        #expect(Self.bytes(of: decoded) == [128, 1, 254, 127, 255, 0])
    }

    @Test func separatePlanesAreInterleaved() throws {
        var tags = Self.plainTags(width: 3, height: 2, bits: 8, samples: 3, photometric: 2)
        tags[284] = [2]
        let red: [UInt8] = [1, 2, 3, 4, 5, 6], green: [UInt8] = [10, 20, 30, 40, 50, 60], blue: [UInt8] = [100, 110, 120, 130, 140, 150]
        let decoded = try Image.decode(Self.handMade(tags: tags, strips: [red, green, blue]))
        #expect(decoded.pixel(x: 0, y: 0) == Color(red: 1, green: 10, blue: 100))
        #expect(decoded.pixel(x: 2, y: 1) == Color(red: 6, green: 60, blue: 150))
    }

    @Test func cmykWithItsProfileMatchesTheCMYKJPEG() throws {
        let directory = try TemporaryDirectory()
        let tiff = directory.file("cmyk.tif"), jpeg = directory.file("cmyk.jpg")
        try Self.pillow("""
            colors = [(0, 0, 0, 0), (255, 0, 0, 0), (0, 255, 0, 0), (0, 0, 255, 0), (0, 0, 0, 255), (128, 64, 32, 16), (40, 200, 180, 0), (60, 60, 60, 60)]
            im = Image.new('CMYK', (64, 8))
            for i, c in enumerate(colors):
                im.paste(c, (i * 8, 0, i * 8 + 8, 8))
            icc = open('\(ColorReference.cmyk)', 'rb').read()
            im.save('\(tiff)', icc_profile=icc)
            im.save('\(jpeg)', quality=100, subsampling=0, icc_profile=icc)
            """)
        let fromTIFF = try Image.decode(Self.read(tiff)), fromJPEG = try Image.decode(Self.read(jpeg))
        #expect(!fromTIFF.hasAlpha && fromTIFF.metadata.sourceProfile != nil)
        for patch in 0..<8 {
            let a = fromTIFF.pixel(x: patch * 8 + 4, y: 4), b = fromJPEG.pixel(x: patch * 8 + 4, y: 4)
            #expect(Synthetic.close(a, b, tolerance: 2), "patch \(patch): TIFF \(a), JPEG \(b)")
        }
        // The profile was used: the plain formula gives pure cyan for (255, 0, 0, 0).
        #expect(!Synthetic.close(fromTIFF.pixel(x: 12, y: 4), Color(red: 0, green: 255, blue: 255), tolerance: 10))
    }

    @Test func cmykWithoutAProfileTakesThePlainFormula() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("plain.tif")
        try Self.pillow("""
            im = Image.new('CMYK', (16, 8), (255, 0, 0, 0))
            im.paste((0, 0, 0, 128), (8, 0, 16, 8))
            im.save('\(path)')
            """)
        let decoded = try Image.decode(Self.read(path))
        #expect(decoded.pixel(x: 4, y: 4) == Color(red: 0, green: 255, blue: 255))
        #expect(decoded.pixel(x: 12, y: 4) == Color(red: 127, green: 127, blue: 127))
    }

    /// sRGB (0–255) of CIELab relative to D50 by the formulas: Lab to XYZ (CIE 15), then XYZ (D50)
    /// to linear sRGB by the Bradford-adapted matrix (Lindbloom's), then sRGB's curve.
    static func sRGB(ofLab l: Double, _ a: Double, _ b: Double) -> [Int] {
        let fy = (l + 16) / 116, fx = fy + a / 500, fz = fy - b / 200
        func inverse(_ f: Double) -> Double { f * f * f > 216.0 / 24389 ? f * f * f : (116 * f - 16) * 27 / 24389 }
        let x = 0.9642 * inverse(fx), y = inverse(fy), z = 0.8249 * inverse(fz)
        let linear = [3.1338561 * x - 1.6168667 * y - 0.4906146 * z,
                      -0.9787684 * x + 1.9161415 * y + 0.0334540 * z,
                      0.0719453 * x - 0.2289914 * y + 1.4052427 * z]
        return linear.map { v in
            let c = min(max(v, 0), 1)
            let encoded = c <= 0.0031308 ? 12.92 * c : 1.055 * pow(c, 1 / 2.4) - 0.055
            return Int((encoded * 255).rounded())
        }
    }

    /// CIELab TIFFs (photometric 8: L* unsigned, a* and b* signed) are converted from Lab D50 to
    /// sRGB: white stays white (libtiff's RGBA interface gave 255,252,222), a color lands within
    /// 2 levels of the formulas' sRGB, and nothing is left of the file's own samples.
    @Test(arguments: [8, 16])
    func cieLabIsConvertedToSRGB(bits: Int) throws {
        // White, black, L* 50.2 a* 20 b* −30, and L* 70.2 a* −40 b* 50, one pixel each.
        let lab: [(l: Int, a: Int, b: Int)] = [(255, 0, 0), (0, 0, 0), (128, 20, -30), (179, -40, 50)]
        let strip: [UInt8] = lab.flatMap { pixel -> [UInt8] in
            if bits == 8 { return [UInt8(pixel.l), UInt8(bitPattern: Int8(pixel.a)), UInt8(bitPattern: Int8(pixel.b))] }
            // 16 bits: L* over 0…65535, a* and b* in 1/256ths, little-endian.
            let samples = [UInt16(pixel.l * 257), UInt16(bitPattern: Int16(pixel.a * 256)), UInt16(bitPattern: Int16(pixel.b * 256))]
            return samples.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
        }
        let tiff = Self.handMade(tags: Self.plainTags(width: 4, height: 1, bits: bits, samples: 3, photometric: 8), strips: [strip])
        let decoded = try Image.decode(tiff)
        #expect(!decoded.hasAlpha && decoded.size == Size(4, 1))
        #expect(decoded.pixel(x: 0, y: 0) == Color(red: 255, green: 255, blue: 255), "white: \(decoded.pixel(x: 0, y: 0))")
        #expect(decoded.pixel(x: 1, y: 0) == Color(red: 0, green: 0, blue: 0), "black: \(decoded.pixel(x: 1, y: 0))")
        for (index, pixel) in lab.enumerated().dropFirst(2) {
            let expected = Self.sRGB(ofLab: Double(pixel.l) * 100 / 255, Double(pixel.a), Double(pixel.b))
            let got = decoded.pixel(x: index, y: 0)
            let difference = zip([Int(got.red), Int(got.green), Int(got.blue)], expected).map { abs($0 - $1) }.max()!
            #expect(difference <= 2, "Lab \(pixel): \(got), the formulas say \(expected)")
        }
    }

    /// A CIELab TIFF with unassociated alpha keeps its alpha as it is beside the converted color.
    @Test func cieLabKeepsItsAlpha() throws {
        var tags = Self.plainTags(width: 2, height: 1, bits: 8, samples: 4, photometric: 8)
        tags[338] = [2]
        let tiff = Self.handMade(tags: tags, strips: [[255, 0, 0, 77, 0, 0, 0, 200]])
        let decoded = try Image.decode(tiff)
        #expect(decoded.hasAlpha)
        #expect(decoded.pixel(x: 0, y: 0) == Color(red: 255, green: 255, blue: 255, alpha: 77), "\(decoded.pixel(x: 0, y: 0))")
        #expect(decoded.pixel(x: 1, y: 0) == Color(red: 0, green: 0, blue: 0, alpha: 200), "\(decoded.pixel(x: 1, y: 0))")
    }

    @Test func paletteIsReadAsPillowShowsIt() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("palette.tif"), raw = directory.file("palette.raw")
        try Self.pillow("""
            rng = np.random.default_rng(3)
            im = Image.fromarray(rng.integers(0, 256, size=(20, 30, 3), dtype=np.uint8)).quantize(16)
            im.save('\(path)')
            open('\(raw)', 'wb').write(np.asarray(Image.open('\(path)').convert('RGB')).tobytes())
            """)
        let decoded = try Image.decode(Self.read(path))
        #expect(!decoded.hasAlpha)
        #expect(Self.bytes(of: decoded) == (try Self.read(raw)))
    }

    @Test func oneBitIsReadAsPillowShowsIt() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("bits.tif"), raw = directory.file("bits.raw")
        try Self.pillow("""
            rng = np.random.default_rng(5)
            Image.fromarray(rng.integers(0, 2, size=(13, 21), dtype=np.uint8) * 255).convert('1').save('\(path)', compression='group4')
            open('\(raw)', 'wb').write(np.asarray(Image.open('\(path)').convert('RGB')).tobytes())
            """)
        let decoded = try Image.decode(Self.read(path))
        #expect(decoded.size == Size(21, 13) && !decoded.hasAlpha)
        #expect(Self.bytes(of: decoded) == (try Self.read(raw)))
    }

    @Test func jpegCompressedTIFFIsClose() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("jpeg.tif"), raw = directory.file("jpeg.raw")
        try Self.pillow("""
            y, x = np.mgrid[0:48, 0:64]
            data = np.stack([x * 4, y * 5, (x + y) * 2], axis=-1).astype(np.uint8)
            open('\(raw)', 'wb').write(data.tobytes())
            Image.fromarray(data).save('\(path)', compression='jpeg', quality=90)
            """)
        let decoded = try Image.decode(Self.read(path))
        let original = try Image.make(size: Size(64, 48), hasAlpha: false) { writer in
            let bytes = try Self.read(raw)
            for y in 0..<48 { for i in 0..<64 * 3 { writer.row(y)[i] = bytes[y * 64 * 3 + i] } }
        }
        #expect(!decoded.hasAlpha)
        let psnr = try PictureComparison(original, decoded).psnr
        #expect(psnr > 35, "PSNR \(psnr)")
    }

    // MARK: Writing

    /// A gradient, with alpha bands when `alpha`.
    static func picture(alpha: Bool) throws -> Image {
        try Synthetic.image(40, 24, alpha: alpha) { x, y in
            Color(red: UInt8(x * 6), green: UInt8(y * 10), blue: UInt8((x * y) % 256), alpha: alpha ? UInt8(y * 10 + 5) : 255)
        }
    }

    /// What Pillow sees of a TIFF: its mode, the samples per pixel tag, and its pixels.
    static func pillowView(of bytes: [UInt8], in directory: TemporaryDirectory) throws -> (mode: String, samples: Int, compression: Int, pixels: [UInt8]) {
        let path = try directory.write(bytes, to: "written.tif")
        let facts = directory.file("facts.txt"), raw = directory.file("written.raw")
        try pillow("""
            im = Image.open('\(path)')
            open('\(facts)', 'w').write('%s %d %d' % (im.mode, im.tag_v2.get(277, 1), im.tag_v2.get(259, 1)))
            open('\(raw)', 'wb').write(np.asarray(im).tobytes())
            """)
        let words = String(decoding: try read(facts), as: UTF8.self).split(separator: " ")
        return (String(words[0]), Int(words[1]) ?? 0, Int(words[2]) ?? 0, try read(raw))
    }

    @Test(arguments: [(TIFFCompression.none, 1), (.deflate, 8), (.lzw, 5)])
    func losslessRGBIsWrittenAsThreeSamples(compression: TIFFCompression, tag: Int) throws {
        let directory = try TemporaryDirectory()
        let original = try Self.picture(alpha: false)
        let bytes = try original.encoded(as: .tiff, options: SaveOptions(tiffCompression: compression))
        let view = try Self.pillowView(of: bytes, in: directory)
        #expect(view.mode == "RGB" && view.samples == 3, "\(view.mode), \(view.samples) samples")
        #expect(view.compression == tag)
        #expect(view.pixels == Self.bytes(of: original))
        let decoded = try Image.decode(bytes)
        #expect(!decoded.hasAlpha && Self.bytes(of: decoded) == Self.bytes(of: original))
    }

    @Test func alphaIsWrittenUnassociated() throws {
        let directory = try TemporaryDirectory()
        let original = try Self.picture(alpha: true)
        let bytes = try original.encoded(as: .tiff)
        let view = try Self.pillowView(of: bytes, in: directory)
        // Pillow's RGBA is unassociated alpha (ExtraSamples = 2); associated would open as RGBa.
        #expect(view.mode == "RGBA" && view.samples == 4, "\(view.mode)")
        #expect(view.pixels == Self.bytes(of: original))
        #expect(Self.bytes(of: try Image.decode(bytes)) == Self.bytes(of: original))
    }

    @Test func grayIsWrittenAsOneSample() throws {
        let directory = try TemporaryDirectory()
        let levels = try Synthetic.image(20, 10) { x, y in
            let level = UInt8(x * 12 + y)
            return Color(red: level, green: level, blue: level)
        }
        var metadata = ImageMetadata()
        metadata.grayOnly = true
        let bytes = try levels.withMetadata(metadata).encoded(as: .tiff)
        let view = try Self.pillowView(of: bytes, in: directory)
        #expect(view.mode == "L" && view.samples == 1, "\(view.mode)")
        #expect(view.pixels == Self.bytes(of: levels).enumerated().filter { $0.offset % 3 == 0 }.map(\.element))
        // Not gray: three samples.
        #expect(try Self.pillowView(of: levels.encoded(as: .tiff), in: directory).samples == 3)
    }

    @Test(arguments: [16, 32])
    func tilesAreReadBackEqualByPillowAndImagePipe(side: Int) throws {
        let directory = try TemporaryDirectory()
        for alpha in [false, true] {
            let original = try Self.picture(alpha: alpha)
            let bytes = try original.encoded(as: .tiff, options: SaveOptions(tile: side))
            let path = try directory.write(bytes, to: "tiled.tif"), facts = directory.file("tiles.txt")
            try Self.pillow("open('\(facts)', 'w').write('%d %d' % (Image.open('\(path)').tag_v2.get(322, 0), Image.open('\(path)').tag_v2.get(323, 0)))")
            #expect(String(decoding: try Self.read(facts), as: UTF8.self) == "\(side) \(side)")
            #expect(try Self.pillowView(of: bytes, in: directory).pixels == Self.bytes(of: original), "alpha \(alpha)")
            #expect(Self.bytes(of: try Image.decode(bytes)) == Self.bytes(of: original), "alpha \(alpha)")
        }
    }

    @Test func aTileLargerThanThePictureIsCutToIt() throws {
        let original = try Self.picture(alpha: false)
        let bytes = try original.encoded(as: .tiff, options: SaveOptions(tiffCompression: TIFFCompression.none, tile: 4096))
        #expect(bytes.count < 64 << 10, "\(bytes.count) bytes for a 40x24 picture")
        #expect(Self.bytes(of: try Image.decode(bytes)) == Self.bytes(of: original))
    }

    @Test func jpegCompressionIsCloseAndSmaller() throws {
        let directory = try TemporaryDirectory()
        let original = try Synthetic.gradient(256, 128)
        let jpeg = try original.encoded(as: .tiff, options: SaveOptions(quality: 90, tiffCompression: .jpeg))
        let plain = try original.encoded(as: .tiff, options: SaveOptions(tiffCompression: TIFFCompression.none))
        #expect(jpeg.count < plain.count / 4, "\(jpeg.count) against \(plain.count)")
        let view = try Self.pillowView(of: jpeg, in: directory)
        #expect(view.mode == "RGB" && view.compression == 7)
        let psnr = try PictureComparison(original, Image.decode(jpeg)).psnr
        #expect(psnr > 35, "PSNR \(psnr)")
    }

    @Test func theProfileIsEmbeddedAndReadBack() throws {
        let directory = try TemporaryDirectory()
        let adobe = try Self.read("/usr/share/color/icc/colord/AdobeRGB1998.icc")
        let picture = try Self.picture(alpha: false).withMetadata(ImageMetadata(iccProfile: adobe))
        let bytes = try picture.encoded(as: .tiff)
        let path = try directory.write(bytes, to: "adobe.tif"), icc = directory.file("icc.bin")
        try Self.pillow("open('\(icc)', 'wb').write(Image.open('\(path)').info.get('icc_profile', b''))")
        #expect(try Self.read(icc) == adobe)
        var keep = LoadOptions()
        keep.color = .keep
        let decoded = try Image.decode(bytes, options: keep)
        #expect(decoded.metadata.sourceProfile == adobe && decoded.metadata.iccProfile == adobe)
        #expect(Self.bytes(of: decoded) == Self.bytes(of: picture))
    }

    @Test func tileMustBeAMultipleOfSixteen() throws {
        let result = try CommandRunner.run(["check", "-e", "load | save out.tif tile=100"])
        #expect(result.status != 0)
        #expect(result.standardError.contains("multiple of 16"), "\(result.standardError)")
        #expect(try CommandRunner.run(["check", "-e", "load | save out.tif tile=256 tiff-compression=lzw"]).status == 0)
    }

    // MARK: Damage and limits

    @Test func aStripCutInHalfIsRefused() throws {
        let directory = try TemporaryDirectory()
        let (tiff, _) = try Self.pillowFile(directory, name: "whole", mode: "RGB", size: (64, 64))
        let whole = try Self.read(tiff)
        // Pillow writes the directory first and the one strip after it.
        let cut = Array(whole.prefix(whole.count - 64 * 64 * 3 / 2))
        #expect(throws: ImageError.self) { try Image.decode(cut) }
        do {
            _ = try Image.decode(cut)
        } catch let error as ImageError {
            #expect(error.kind == .corrupt)
            #expect(error.reason.contains("strip 0") && error.reason.contains("Read error"), "\(error.reason)")
        }
        let path = try directory.write(cut, to: "cut.tif")
        let result = try CommandRunner.run(["run", "-e", "load | save", path, "-o", directory.file("out.png")])
        #expect(result.status != 0)
        #expect(result.standardError.contains("cut.tif") && result.standardError.contains("strip"), "\(result.standardError)")
    }

    @Test func aHugeStripByteCountCostsNoMemory() throws {
        let directory = try TemporaryDirectory()
        let strip = [UInt8](repeating: 90, count: 256 * 256 * 3)
        for compression: UInt32 in [1, 8] {
            var tags = Self.plainTags(width: 256, height: 256, bits: 8, samples: 3, photometric: 2)
            tags[259] = [compression]
            // A strip of 3.75 GiB, said to lie in a file of 192 KiB.
            let tiff = Self.handMade(tags: tags, strips: [strip], byteCounts: [0xF000_0000])
            if compression == 1 {
                // Uncompressed, libtiff reads the bytes the rows need, from the file as it is.
                #expect(try Image.decode(tiff).pixel(x: 255, y: 255) == Color(red: 90, green: 90, blue: 90))
            } else {
                // Deflate is asked for past the file's end: refused.
                #expect(throws: ImageError.self) { try Image.decode(tiff) }
            }
            let path = try directory.write(tiff, to: "bogus\(compression).tif")
            let run = try PeakMemory.run(["run", "-e", "load | save", path, "-o", "out.png"], in: directory.path)
            #expect(run.status == (compression == 1 ? 0 : 1), "\(run.standardError)")
            #expect(run.peakBytes < 200 << 20, "peak \(run.peakBytes >> 20) MiB")
        }
    }

    @Test func aHugeDirectoryIsRefusedByThePixelLimit() throws {
        let directory = try TemporaryDirectory()
        let tiff = Self.handMade(tags: Self.plainTags(width: 100_000, height: 100_000, bits: 8, samples: 3, photometric: 2),
                                 strips: [[1, 2, 3]])
        do {
            _ = try Image.decode(tiff)
            Issue.record("a 100000x100000 TIFF was decoded")
        } catch let error as ImageError {
            #expect(error.kind == .tooLarge && error.reason.contains("limit"), "\(error)")
        }
        let path = try directory.write(tiff, to: "huge.tif")
        let run = try PeakMemory.run(["run", "-e", "load | save", path, "-o", "out.png"], in: directory.path)
        #expect(run.status != 0 && run.standardError.contains("limit"), "\(run.standardError)")
        #expect(run.peakBytes < 200 << 20, "peak \(run.peakBytes >> 20) MiB")
    }
}
