import Foundation
@testable import ImagePipe
@testable import ImagePipeCore
import Testing
import TestSupport

/// ImagePipe's own BMP reader, on small files made like bmpsuite's (`BMPTestFile`): its good
/// files right, its questionable ones as Chromium shows them, its bad ones refused at their
/// `fail=` level. Each case probes pixels.
@Suite struct BMPDecoderTests {
    static let red = Color(red: 255, green: 0, blue: 0), green = Color(red: 0, green: 255, blue: 0)
    static let blue = Color(red: 0, green: 0, blue: 255), white = Color(red: 255, green: 255, blue: 255)
    static let clear = Color(red: 0, green: 0, blue: 0, alpha: 0)

    static func decode(_ file: BMPTestFile, failOn: FailOn = .error) throws -> Image {
        try Image.decode(file.bytes, options: LoadOptions(failOn: failOn))
    }

    static func rgb(_ color: (UInt8, UInt8, UInt8)) -> Color { Color(red: color.0, green: color.1, blue: color.2) }

    // MARK: Palettes

    @Test func onePixelBitIndexesItsTwoColors() throws {
        let palette: [(UInt8, UInt8, UInt8)] = [(10, 20, 30), (200, 100, 50)]
        let image = try Self.decode(BMPTestFile(width: 3, bits: 1, palette: palette,
                                                data: BMPTestFile.rows([[0b1010_0000], [0b0100_0000]])))
        #expect(image.hasAlpha == false)
        #expect(image.pixel(x: 0, y: 1) == Self.rgb(palette[1]))
        #expect(image.pixel(x: 1, y: 1) == Self.rgb(palette[0]))
        #expect(image.pixel(x: 2, y: 1) == Self.rgb(palette[1]))
        #expect(image.pixel(x: 0, y: 0) == Self.rgb(palette[0]))
        #expect(image.pixel(x: 1, y: 0) == Self.rgb(palette[1]))
    }

    /// 2 bits per pixel (Windows CE; bmpsuite's q/pal2).
    @Test func twoBitPixels() throws {
        let palette: [(UInt8, UInt8, UInt8)] = [(0, 0, 0), (255, 0, 0), (0, 255, 0), (0, 0, 255)]
        let image = try Self.decode(BMPTestFile(width: 4, height: 1, bits: 2, palette: palette, data: BMPTestFile.rows([[0b0001_1011]])))
        #expect((0..<4).map { image.pixel(x: $0, y: 0) } == [Color(red: 0, green: 0, blue: 0), Self.red, Self.green, Self.blue])
    }

    /// A 4-bit picture with a 12-color palette the header counts (bmpsuite's g/pal4).
    @Test func aShortPaletteItsHeaderCounts() throws {
        let palette: [(UInt8, UInt8, UInt8)] = (0..<12).map { (i: Int) -> (UInt8, UInt8, UInt8) in (UInt8(i * 20), UInt8(255 - i * 20), 7) }
        let image = try Self.decode(BMPTestFile(width: 3, height: 1, bits: 4, palette: palette, data: BMPTestFile.rows([[0x1B, 0x00]])))
        #expect(image.pixel(x: 0, y: 0) == Self.rgb(palette[1]))
        #expect(image.pixel(x: 1, y: 0) == Self.rgb(palette[11]))
        #expect(image.pixel(x: 2, y: 0) == Self.rgb(palette[0]))
    }

    /// Unused bytes between the palette and the pixels (bmpsuite's q/pal8offs; gdk-pixbuf showed it black).
    @Test func pixelsWhereTheDataOffsetPlacesThem() throws {
        let palette: [(UInt8, UInt8, UInt8)] = [(255, 0, 0), (0, 255, 0), (0, 0, 255)]
        let image = try Self.decode(BMPTestFile(width: 4, height: 1, bits: 8, palette: palette, gap: 100,
                                                data: BMPTestFile.rows([[2, 1, 0, 2]])))
        #expect((0..<4).map { image.pixel(x: $0, y: 0) } == [Self.blue, Self.green, Self.red, Self.blue])
    }

    /// An 8-bit picture whose header counts no colors (0: all 256) and states no data offset.
    @Test func noColorCountAndNoOffsetMeanTheDefaults() throws {
        let palette: [(UInt8, UInt8, UInt8)] = (0..<256).map { (i: Int) -> (UInt8, UInt8, UInt8) in (UInt8(i), UInt8(255 - i), UInt8(i / 2)) }
        let image = try Self.decode(BMPTestFile(width: 2, height: 1, bits: 8, palette: palette, statedColors: 0, statedOffset: 0,
                                                data: BMPTestFile.rows([[200, 3]])))
        #expect(image.pixel(x: 0, y: 0) == Self.rgb(palette[200]))
        #expect(image.pixel(x: 1, y: 0) == Self.rgb(palette[3]))
    }

    /// OS/2 1.x: a 12-byte header and 3-byte palette entries, here fewer than 256 (bmpsuite's
    /// g/pal8os2 and q/pal8os2sp; gdk-pixbuf showed them black).
    @Test func os2VersionOneWithAShortPalette() throws {
        let palette: [(UInt8, UInt8, UInt8)] = [(255, 0, 0), (0, 255, 0), (0, 0, 255)]
        let image = try Self.decode(BMPTestFile(width: 3, height: 2, infoSize: 12, bits: 8, palette: palette,
                                                data: BMPTestFile.rows([[0, 1, 2], [2, 2, 1]])))
        #expect((0..<3).map { image.pixel(x: $0, y: 1) } == [Self.red, Self.green, Self.blue])
        #expect((0..<3).map { image.pixel(x: $0, y: 0) } == [Self.blue, Self.blue, Self.green])
    }

    /// OS/2 2.x with its shortest (16-byte) header: 4-byte entries, the count from the space before the pixels.
    @Test func os2VersionTwoShortHeader() throws {
        let palette: [(UInt8, UInt8, UInt8)] = [(255, 0, 0), (0, 255, 0)]
        let image = try Self.decode(BMPTestFile(width: 2, height: 1, infoSize: 16, bits: 8, palette: palette, data: BMPTestFile.rows([[1, 0]])))
        #expect(image.pixel(x: 0, y: 0) == Self.green)
        #expect(image.pixel(x: 1, y: 0) == Self.red)
    }

    // MARK: 16 and 32 bits, bit fields

    /// 5-5-5 by default, white as 255 (not 248); the unused top bit is not alpha (q/rgb16faketrns).
    @Test func sixteenBitDefault() throws {
        let pixels: [UInt16] = [0x7FFF, 0xFC00, 0x0010]
        let image = try Self.decode(BMPTestFile(width: 3, height: 1, bits: 16, data: BMPTestFile.rows([pixels.flatMap { BMPTestFile.little(Int($0), 2) }])))
        #expect(image.hasAlpha == false)
        #expect(image.pixel(x: 0, y: 0) == Self.white)
        #expect(image.pixel(x: 1, y: 0) == Self.red)
        #expect(image.pixel(x: 2, y: 0) == Color(red: 0, green: 0, blue: 132)) // 16 of 31
    }

    /// 5-6-5 bit fields followed by a palette (bmpsuite's g/rgb16-565pal: gdk-pixbuf read the
    /// pixels from inside the palette, 27 levels off on average).
    @Test func sixteenBit565WithAPalette() throws {
        let pixels: [UInt16] = [0xFFFF, 0x07E0, 0x0020, 0xF800]
        let palette = (0..<256).map { _ in (UInt8(9), UInt8(9), UInt8(9)) }
        let image = try Self.decode(BMPTestFile(width: 4, height: 1, bits: 16, compression: 3, masks: [0xF800, 0x07E0, 0x001F], palette: palette,
                                                data: BMPTestFile.rows([pixels.flatMap { BMPTestFile.little(Int($0), 2) }])))
        #expect((0..<4).map { image.pixel(x: $0, y: 0) } == [Self.white, Self.green, Color(red: 0, green: 4, blue: 0), Self.red])
    }

    /// Odd masks, each field scaled to 0–255: 8-8-0 (no blue), 4-4-4-4 and 1-9-2-4 with alpha in
    /// a version 5 header (bmpsuite's rgb16-880, rgba16-4444, rgba16-1924).
    @Test(arguments: [
        ([0xFF00, 0x00FF, 0], 0x80FF, Color(red: 128, green: 255, blue: 0)),
        ([0x0F00, 0x00F0, 0x000F, 0xF000], 0x8F00, Color(red: 255, green: 0, blue: 0, alpha: 136)),
        ([0x8000, 0x7FC0, 0x0030, 0x000F], 0xFFFF, Self.white),
        ([0x8000, 0x7FC0, 0x0030, 0x000F], 0x8027, Color(red: 255, green: 0, blue: 170, alpha: 119)),
    ] as [([UInt32], UInt16, Color)])
    func sixteenBitOddMasks(masks: [UInt32], pixel: UInt16, expected: Color) throws {
        let other: UInt16 = masks.count == 4 ? 0x000F : 0 // a second pixel, for an alpha channel seen somewhere
        let image = try Self.decode(BMPTestFile(width: 2, height: 1, infoSize: 124, bits: 16, compression: 3, masks: masks,
                                                data: BMPTestFile.rows([BMPTestFile.little(Int(pixel), 2) + BMPTestFile.little(Int(other), 2)])))
        #expect(image.hasAlpha == (masks.count == 4))
        #expect(image.pixel(x: 0, y: 0) == expected)
    }

    @Test func twentyFourBit() throws {
        let image = try Self.decode(BMPTestFile(width: 2, height: 1, data: BMPTestFile.rows([[30, 20, 10, 0, 0, 255]])))
        #expect(image.pixel(x: 0, y: 0) == Color(red: 10, green: 20, blue: 30))
        #expect(image.pixel(x: 1, y: 0) == Self.red)
    }

    /// A plain 32-bit picture's fourth byte is not alpha, set or not (q/rgb32fakealpha).
    @Test func thirtyTwoBitWithoutAnAlphaMaskIsOpaque() throws {
        let image = try Self.decode(BMPTestFile(width: 1, height: 1, bits: 32, data: [30, 20, 10, 77]))
        #expect(image.hasAlpha == false)
        #expect(image.pixel(x: 0, y: 0) == Color(red: 10, green: 20, blue: 30))
    }

    /// Alpha masks: a 40-byte header with BI_ALPHABITFIELDS (q/rgba32abf), a version 4 header with
    /// the channels in an unusual order (q/rgba32-2), 10-10-10-2 in version 5 (q/rgba32-1010102).
    @Test(arguments: [
        (40, 6, [0xFF_0000, 0xFF00, 0xFF, 0xFF00_0000], 0x800A_141E, Color(red: 10, green: 20, blue: 30, alpha: 128)),
        (108, 3, [0xFF, 0xFF00_0000, 0xFF00, 0xFF_0000], 0x0A80_1E14, Color(red: 20, green: 10, blue: 30, alpha: 128)),
        (124, 3, [0x3FF0_0000, 0x000F_FC00, 0x3FF, 0xC000_0000], 0x7FF0_0000, Color(red: 255, green: 0, blue: 0, alpha: 85)),
    ] as [(Int, Int, [UInt32], UInt32, Color)])
    func thirtyTwoBitAlphaMasks(infoSize: Int, compression: Int, masks: [UInt32], pixel: UInt32, expected: Color) throws {
        let image = try Self.decode(BMPTestFile(width: 1, height: 1, infoSize: infoSize, bits: 32, compression: compression, masks: masks,
                                                data: BMPTestFile.little(Int(pixel), 4)))
        #expect(image.hasAlpha)
        #expect(image.pixel(x: 0, y: 0) == expected)
    }

    /// An alpha mask whose field is 0 everywhere: opaque, as browsers show such files.
    @Test func anAlphaFieldThatIsZeroEverywhereIsOpaque() throws {
        let image = try Self.decode(BMPTestFile(width: 1, height: 1, infoSize: 124, bits: 32, compression: 3,
                                                masks: [0xFF_0000, 0xFF00, 0xFF, 0xFF00_0000], data: [30, 20, 10, 0]))
        #expect(image.hasAlpha == false)
        #expect(image.pixel(x: 0, y: 0) == Color(red: 10, green: 20, blue: 30))
    }

    @Test func topDownRows() throws {
        let image = try Self.decode(BMPTestFile(width: 1, height: 2, topDown: true, data: BMPTestFile.rows([[0, 0, 255], [255, 0, 0]])))
        #expect(image.pixel(x: 0, y: 0) == Self.red)
        #expect(image.pixel(x: 0, y: 1) == Self.blue)
    }

    // MARK: Run-length data

    /// RLE4 with a run, end of line, a delta, literal pixels and end of bitmap: what the data
    /// leaves undrawn is transparent (bmpsuite's q/pal4rletrns, as Chromium shows it).
    @Test func runLength4WithADelta() throws {
        let palette: [(UInt8, UInt8, UInt8)] = [(0, 0, 0), (255, 0, 0), (0, 255, 0), (0, 0, 255)]
        let data: [UInt8] = [6, 0x12, 0, 0, 0, 2, 2, 1, 0, 3, 0x31, 0x20, 0, 1]
        let image = try Self.decode(BMPTestFile(width: 6, height: 3, bits: 4, compression: 2, palette: palette, data: data))
        #expect(image.hasAlpha)
        #expect((0..<6).map { image.pixel(x: $0, y: 2) } == [Self.red, Self.green, Self.red, Self.green, Self.red, Self.green])
        #expect((0..<6).allSatisfy { image.pixel(x: $0, y: 1) == Self.clear })
        #expect((0..<6).map { image.pixel(x: $0, y: 0) } == [Self.clear, Self.clear, Self.blue, Self.red, Self.green, Self.clear])
    }

    /// RLE8 that draws every pixel is opaque.
    @Test func runLength8Whole() throws {
        let palette: [(UInt8, UInt8, UInt8)] = [(255, 0, 0), (0, 255, 0)]
        let data: [UInt8] = [2, 1, 1, 0, 0, 0, 0, 3, 0, 1, 0, 0, 0, 1]
        let image = try Self.decode(BMPTestFile(width: 3, height: 2, bits: 8, compression: 1, palette: palette, data: data))
        #expect(image.hasAlpha == false)
        #expect((0..<3).map { image.pixel(x: $0, y: 1) } == [Self.green, Self.green, Self.red])
        #expect((0..<3).map { image.pixel(x: $0, y: 0) } == [Self.red, Self.green, Self.red])
    }

    /// OS/2 2.x's RLE24 (bmpsuite's q/rgb24rle24): a run and literal pixels of 3 bytes each.
    @Test func runLength24() throws {
        let data: [UInt8] = [2, 30, 20, 10, 0, 3, 0, 0, 255, 0, 255, 0, 255, 0, 0, 0, 0, 1]
        let image = try Self.decode(BMPTestFile(width: 5, height: 1, infoSize: 64, compression: 4, data: data))
        #expect((0..<5).map { image.pixel(x: $0, y: 0) }
                == [Color(red: 10, green: 20, blue: 30), Color(red: 10, green: 20, blue: 30), Self.red, Self.green, Self.blue])
    }

    // MARK: Damage and bad headers

    /// The data ends early (bmpsuite's b/shortfile; gdk-pixbuf gave black rows and exit 0):
    /// refused unless `fail=none`.
    @Test func dataThatEndsEarly() throws {
        let file = BMPTestFile(width: 2, height: 4, data: BMPTestFile.rows([[255, 0, 0, 255, 0, 0], [0, 0, 255, 0, 0, 255]]))
        for level in [FailOn.truncated, .error, .warning] {
            let error = try #require(throws: ImageError.self) { try Self.decode(file, failOn: level) }
            #expect(error.description.contains("the BMP's pixel data ends after 2 of its 4 rows"), "\(error)")
        }
        let taken = try Self.decode(file, failOn: .none)
        #expect(taken.pixel(x: 0, y: 3) == Self.blue)
        #expect(taken.pixel(x: 1, y: 2) == Self.red)
        #expect(taken.pixel(x: 0, y: 0) == Color(red: 0, green: 0, blue: 0))
    }

    /// Damaged run-length data (bmpsuite's b/badrle*): a run past its row, a delta past the
    /// picture, refused at `fail=error`; cut data at `fail=truncated`; an early end marker is
    /// no damage (q/pal8rlecut).
    @Test(arguments: [
        ([UInt8(2), 1, 2, 0, 0, 1], FailOn.error, "runs past the end of row 0 (to column 4 of 3)"),
        ([1, 1, 0, 2, 1, 5, 0, 1], .error, "moves past the picture (by 1, 5 from column 1 of row 0)"),
        ([3, 1, 0, 0], .truncated, "ends after 1 of its 2 rows, without its end marker"),
        ([3, 1, 0, 1], nil, ""),
    ] as [([UInt8], FailOn?, String)])
    func damagedRunLengthData(data: [UInt8], level: FailOn?, reason: String) throws {
        let file = BMPTestFile(width: 3, height: 2, bits: 8, compression: 1, palette: [(255, 0, 0), (0, 255, 0)], data: data)
        for failOn in FailOn.allCases {
            if let level, failOn >= level {
                let error = try #require(throws: ImageError.self) { try Self.decode(file, failOn: failOn) }
                #expect(error.description.contains("the BMP's run-length data \(reason)"), "\(error)")
            } else {
                let image = try Self.decode(file, failOn: failOn)
                #expect(image.pixel(x: 0, y: 1) == Self.green)
            }
        }
    }

    /// Indices past the palette (bmpsuite's b/pal8badindex): refused at `fail=error`, black below it.
    @Test func indicesPastThePalette() throws {
        let file = BMPTestFile(width: 2, height: 1, bits: 8, palette: [(255, 0, 0), (0, 255, 0)], data: BMPTestFile.rows([[1, 7]]))
        let error = try #require(throws: ImageError.self) { try Self.decode(file) }
        #expect(error.description.contains("colors past the end of its 2-color palette"), "\(error)")
        let taken = try Self.decode(file, failOn: .truncated)
        #expect(taken.pixel(x: 0, y: 0) == Self.green)
        #expect(taken.pixel(x: 1, y: 0) == Color(red: 0, green: 0, blue: 0))
    }

    /// bmpsuite's bad headers, each refused with the reason.
    @Test(arguments: [
        (BMPTestFile(planes: 2, data: [0, 0, 0, 0, 0, 0, 0, 0]), "2 planes"),
        (BMPTestFile(width: -4, data: []), "a size of -4x2"),
        (BMPTestFile(bits: 7, data: []), "7 bits per pixel"),
        (BMPTestFile(bits: 8, palette: [(0, 0, 0)], statedColors: 0x1234_1234, data: [0, 0, 0, 0, 0, 0, 0, 0]), "a palette of 305402420 colors"),
        (BMPTestFile(bits: 8, compression: 1, topDown: true, palette: [(0, 0, 0)], data: [0, 1]), "stored top down"),
        (BMPTestFile(bits: 16, compression: 3, masks: [0xF800, 0x0FE0, 0x1F], data: []), "bit masks are invalid"),
        (BMPTestFile(bits: 16, compression: 3, masks: [0xF800, 0x07E0, 0x15], data: []), "bit masks are invalid"),
    ] as [(BMPTestFile, String)])
    func badHeadersAreRefused(file: BMPTestFile, reason: String) throws {
        let error = try #require(throws: ImageError.self) { try Self.decode(file, failOn: .none) }
        #expect(error.description.contains("starts like a BMP but"), "\(error)")
        #expect(error.description.contains(reason), "\(error)")
    }

    /// bmpsuite's b/badfilesize, b/badbitssize, b/baddens1 and b/baddens2: the file size, the
    /// pixel data's size and the density are wrong, and no decoder needs them: read as Pillow
    /// reads them, even at `fail=warning`.
    @Test(arguments: [(2, 0x7FFF_FFF0), (34, 0x7FFF_FFF0), (38, -1), (42, 0x7FFF_FFFF)])
    func fieldsNoDecoderNeedsAreIgnored(offset: Int, value: Int) throws {
        let pixels = BMPTestFile.rows([[0, 0, 255, 0, 255, 0, 255, 0, 0, 255, 255, 255], [255, 255, 255, 255, 0, 0, 0, 255, 0, 0, 0, 255]])
        var bytes = BMPTestFile(data: pixels).bytes
        bytes.replaceSubrange(offset..<offset + 4, with: BMPTestFile.little(value, 4))
        let picture = try Image.decode(bytes, options: LoadOptions(failOn: .warning))
        #expect(picture.size == Size(4, 2))
        #expect(picture.pixel(x: 0, y: 1) == Self.red && picture.pixel(x: 1, y: 1) == Self.green && picture.pixel(x: 2, y: 1) == Self.blue)
    }

    @Test func anUnknownHeaderSizeIsRefused() throws {
        var bytes = BMPTestFile(data: [UInt8](repeating: 0, count: 16)).bytes
        bytes[14] = 66
        let error = try #require(throws: ImageError.self) { try Image.decode(bytes) }
        #expect(error.description.contains("an info header of 66 bytes"), "\(error)")
    }

    /// A huge size (bmpsuite's b/reallybig) is refused from the header, before anything is allocated.
    @Test func theSizeIsCheckedBeforeAllocating() throws {
        let file = BMPTestFile(width: 3_000_000, height: 3_000_000, data: [])
        let header = try ImageHeader.read(bytes: file.bytes)
        #expect(header.storedSize == Size(3_000_000, 3_000_000))
        let error = try #require(throws: ImageError.self) { try Self.decode(file, failOn: .none) }
        #expect(error.description.contains("pixels"), "\(error)")
    }

    @Test func sixtyFourBitAndHuffmanAreUnsupported() throws {
        for file in [BMPTestFile(bits: 64, data: []), BMPTestFile(infoSize: 64, bits: 1, compression: 3, palette: [(0, 0, 0), (1, 1, 1)], data: [])] {
            let error = try #require(throws: ImageError.self) { try Self.decode(file) }
            #expect(error.kind == .unsupported, "\(error)")
        }
    }

    // MARK: As Pillow reads them

    /// Pillow's reading of the files gdk-pixbuf got wrong: the same pixels (within 1 level,
    /// as Pillow widens 5- and 6-bit fields by repeating their bits).
    @Test func theFilesGdkPixbufGotWrongReadAsPillowReadsThem() throws {
        let directory = try TemporaryDirectory()
        let gray: [(UInt8, UInt8, UInt8)] = (0..<256).map { (i: Int) -> (UInt8, UInt8, UInt8) in (UInt8(i), UInt8(i), UInt8(255 - i)) }
        let indexRow: [UInt8] = (0..<16).map { UInt8($0 * 16 + 3) }
        let shorts: [UInt16] = (0..<16).map { UInt16($0 * 4111) }
        let files: [String: BMPTestFile] = [
            "pal8offs": BMPTestFile(width: 16, height: 2, bits: 8, palette: gray, gap: 100, data: BMPTestFile.rows([indexRow, indexRow.reversed()])),
            "pal8os2": BMPTestFile(width: 16, height: 2, infoSize: 12, bits: 8, palette: gray, data: BMPTestFile.rows([indexRow, indexRow.reversed()])),
            "rgb16-565pal": BMPTestFile(width: 16, height: 1, bits: 16, compression: 3, masks: [0xF800, 0x07E0, 0x001F], palette: gray,
                                        data: BMPTestFile.rows([shorts.flatMap { BMPTestFile.little(Int($0), 2) }])),
            "rgb16": BMPTestFile(width: 16, height: 1, bits: 16, data: BMPTestFile.rows([shorts.flatMap { BMPTestFile.little(Int($0), 2) }])),
        ]
        for (name, file) in files { try Data(file.bytes).write(to: URL(fileURLWithPath: directory.file(name + ".bmp"))) }
        try ColorReference.python("""
            from PIL import Image
            for name in \(files.keys.sorted()):
                Image.open('\(directory.path)/' + name + '.bmp').convert('RGBA').save('\(directory.path)/' + name + '-pillow.png')
            """)
        for name in files.keys {
            let ours = try Image.load(path: directory.file(name + ".bmp"))
            let pillow = try Image.load(path: directory.file(name + "-pillow.png"))
            #expect(ours.size == pillow.size)
            var largest = 0
            for y in 0..<ours.height {
                for x in 0..<ours.width {
                    let (a, b) = (ours.pixel(x: x, y: y), pillow.pixel(x: x, y: y))
                    largest = max(largest, abs(Int(a.red) - Int(b.red)), abs(Int(a.green) - Int(b.green)), abs(Int(a.blue) - Int(b.blue)),
                                  abs(Int(a.alpha) - Int(b.alpha)))
                }
            }
            #expect(largest <= 1, "\(name): \(largest) levels from Pillow's")
        }
    }
}
