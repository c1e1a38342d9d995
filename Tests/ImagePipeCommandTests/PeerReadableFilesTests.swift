import Foundation
import ImagePipe
import Testing
import TestSupport

/// Files that browsers, Pillow and libvips read, made like the test suites' ones that were
/// refused: each decodes to the picture they show.
@Suite struct PeerReadableFilesTests {
    /// The largest difference between two pictures of one size, over every channel.
    static func largestDifference(_ a: Image, _ b: Image) -> Int {
        var largest = 0
        for y in 0..<a.height {
            for x in 0..<a.width {
                let p = a.pixel(x: x, y: y), q = b.pixel(x: x, y: y)
                largest = max(largest, abs(Int(p.red) - Int(q.red)), abs(Int(p.green) - Int(q.green)), abs(Int(p.blue) - Int(q.blue)),
                              abs(Int(p.alpha) - Int(q.alpha)))
            }
        }
        return largest
    }

    /// Runs that decode the picture whole (a turn by an angle), stream its rows into the
    /// encoder, and read it twice, streamed (`trim`'s survey, then the save).
    static let decodings = ["rotate angle=30", "save", "trim"]

    /// Runs `expression` on `file` and on `reference` in `directory`, and says how far apart the
    /// two outputs are, with what the run of `file` printed to standard error.
    static func compared(_ file: String, with reference: String, expression: String, in directory: TemporaryDirectory,
                         options: [String] = []) throws -> (difference: Int, standardError: String) {
        let run = try CommandRunner.run(["run"] + options + ["-e", expression, file, "-o", "out.png"], in: directory.path)
        #expect(run.status == 0, "\(file), \(expression): \(run.standardError)")
        let plain = try CommandRunner.run(["run"] + options + ["-e", expression, reference, "-o", "reference.png"], in: directory.path)
        #expect(plain.status == 0, "\(reference), \(expression): \(plain.standardError)")
        let out = try Image.load(path: directory.file("out.png")), expected = try Image.load(path: directory.file("reference.png"))
        #expect(out.size == expected.size)
        return (out.size == expected.size ? largestDifference(out, expected) : 255, run.standardError)
    }

    /// Bytes between two JPEG segments before the first scan that start no marker: libjpeg's
    /// warning "extraneous bytes before marker", which libvips at fail-on=error and browsers read
    /// through (the same warning after a scan's data is damage: `FailLevelTests`' flipped.jpg). The picture is
    /// the file's without them, and the run says what libjpeg warned of, in the ordinary run and
    /// the streamed one; `fail=warning` refuses the file.
    @Test func strayBytesBetweenJPEGSegmentsAreReadWithAWarning() throws {
        let directory = try TemporaryDirectory()
        let clean = try Synthetic.gradient(61, 37).encoded(as: .jpeg)
        let tables = try #require(clean.indices.dropLast().first { clean[$0] == 0xFF && clean[$0 + 1] == 0xDB })
        _ = try directory.write(clean, to: "clean.jpg")
        _ = try directory.write(Array(clean[..<tables]) + [0x00, 0x11, 0x22] + Array(clean[tables...]), to: "stray.jpg")
        let warning = "stray.jpg: libjpeg warns: Corrupt JPEG data: 3 extraneous bytes before marker 0xdb; read all the same"
        for expression in Self.decodings {
            let (difference, warnings) = try Self.compared("stray.jpg", with: "clean.jpg", expression: expression, in: directory)
            #expect(difference == 0, "\(expression)")
            #expect(warnings.components(separatedBy: warning).count == 2, "told once, \(expression): \(warnings)")
        }
        let info = try CommandRunner.run(["info", "stray.jpg"], in: directory.path)
        #expect(info.standardOutput.contains("coding: 3 channels (YCbCr), 8 bits"), "\(info.standardOutput)")
        let strict = try CommandRunner.run(["run", "-e", "load fail=warning", "stray.jpg", "-o", "strict.png"], in: directory.path)
        #expect(strict.status != 0 && strict.standardError.contains("extraneous bytes before marker"), "\(strict.standardError)")
        // Turned without decoding (64x48 in 16x16 blocks turns exactly): the same file as the clean one's.
        let whole = try Synthetic.gradient(64, 48).encoded(as: .jpeg)
        let start = try #require(whole.indices.dropLast().first { whole[$0] == 0xFF && whole[$0 + 1] == 0xDB })
        for (name, bytes) in [("blocks.jpg", whole), ("stray-blocks.jpg", Array(whole[..<start]) + [0x00, 0x11, 0x22] + Array(whole[start...]))] {
            _ = try directory.write(bytes, to: name)
            let turned = try CommandRunner.run(["run", "-e", "rotate 90 | save lossless=true", name, "-o", "turned-\(name)"], in: directory.path)
            #expect(turned.status == 0, "\(name): \(turned.standardError)")
        }
        #expect(FileManager.default.contents(atPath: directory.file("turned-blocks.jpg")) == FileManager.default.contents(atPath: directory.file("turned-stray-blocks.jpg")))
    }

    /// `gif` with its global color table moved into each frame (`toFrames`), or dropped.
    static func withoutGlobalTable(_ gif: [UInt8], toFrames: Bool) -> [UInt8] {
        let packed = gif[10]
        let tableLength = packed & 0x80 != 0 ? 3 << (Int(packed & 7) + 1) : 0
        let table = Array(gif[13..<13 + tableLength])
        var out = Array(gif[0..<10]) + [packed & 0x70] + Array(gif[11..<13])
        var index = 13 + tableLength
        func subBlocks() {
            while gif[index] != 0 {
                out += gif[index...index + Int(gif[index])]
                index += 1 + Int(gif[index])
            }
            out.append(0)
            index += 1
        }
        while index < gif.count {
            switch gif[index] {
            case 0x21:
                out += gif[index...index + 1]
                index += 2
                subBlocks()
            case 0x2C:
                var descriptor = Array(gif[index..<index + 10])
                index += 10
                if toFrames, descriptor[9] & 0x80 == 0 {
                    descriptor[9] |= 0x80 | (packed & 7)
                    out += descriptor + table
                } else {
                    out += descriptor
                }
                out.append(gif[index]) // the LZW code size
                index += 1
                subBlocks()
            default:
                out += gif[index...]
                index = gif.count
            }
        }
        return out
    }

    /// A GIF without a global color table: with a table in each frame it is the same picture;
    /// with no table at all every index is opaque black, as Chromium shows it (it was refused:
    /// "GIF frame 0 has no color table").
    @Test func aGIFWithoutAGlobalColorTableIsRead() throws {
        let directory = try TemporaryDirectory()
        let gif = try Synthetic.gradient(20, 10).encoded(as: .gif)
        _ = try directory.write(gif, to: "global.gif")
        _ = try directory.write(Self.withoutGlobalTable(gif, toFrames: true), to: "local.gif")
        _ = try directory.write(Self.withoutGlobalTable(gif, toFrames: false), to: "none.gif")
        #expect(try Self.compared("local.gif", with: "global.gif", expression: "flip", in: directory).difference == 0)
        let none = try CommandRunner.run(["run", "-e", "flip", "none.gif", "-o", "none.png"], in: directory.path)
        #expect(none.status == 0, "\(none.standardError)")
        let black = try Image.load(path: directory.file("none.png"))
        #expect(black.size == Size(20, 10))
        #expect((0..<10).allSatisfy { y in (0..<20).allSatisfy { black.pixel(x: $0, y: y) == Color(red: 0, green: 0, blue: 0, alpha: 255) } })
    }

    /// An empty eXIf chunk: libspng 0.7 refused the file whole ("reached chunk/cache limits"),
    /// even at `fail=none`; libpng warns and reads on, as browsers and Pillow do. The picture is
    /// read with a warning (also when the chunk's header straddles a 64 KiB read), refused at
    /// `fail=warning`.
    @Test func anEmptyExifChunkIsPassedOverWithAWarning() throws {
        let directory = try TemporaryDirectory()
        let plain = try Synthetic.gradient(40, 30).encoded(as: .png)
        _ = try directory.write(plain, to: "plain.png")
        let empty = Synthetic.pngChunk("eXIf", [])
        _ = try directory.write(Synthetic.png(plain, inserting: empty), to: "empty.png")
        // A text chunk that puts the eXIf chunk 5 bytes before the end of the first 64 KiB read.
        let text = Synthetic.pngChunk("tEXt", Array("Comment\0".utf8) + [UInt8](repeating: 0x41, count: 65_486 - 8))
        _ = try directory.write(Synthetic.png(plain, inserting: text + empty), to: "straddling.png")
        for file in ["empty.png", "straddling.png"] {
            for expression in Self.decodings {
                let (difference, warnings) = try Self.compared(file, with: "plain.png", expression: expression, in: directory)
                #expect(difference == 0, "\(file), \(expression)")
                #expect(warnings.components(separatedBy: "\(file): the PNG's eXIf chunk is empty; read all the same").count == 2,
                        "told once, \(file), \(expression): \(warnings)")
            }
        }
        let none = try CommandRunner.run(["run", "-e", "load fail=none", "empty.png", "-o", "none.png"], in: directory.path)
        #expect(none.status == 0, "\(none.standardError)")
        let strict = try CommandRunner.run(["run", "-e", "load fail=warning", "empty.png", "-o", "strict.png"], in: directory.path)
        #expect(strict.status != 0 && strict.standardError.contains("eXIf chunk is empty"), "\(strict.standardError)")
    }

    /// ICO files as Windows Vista and later write them: the large sizes PNG-compressed. The
    /// largest entry is read (it was refused: "Compressed icons are not supported"), also when it
    /// is a PNG beside smaller bitmaps, or a bitmap after smaller ones; `info` says its size.
    @Test func anICOIsReadAtItsLargestEntryPNGOrBitmap() throws {
        let directory = try TemporaryDirectory()
        try ColorReference.python("""
            import io, struct
            from PIL import Image
            d = '\(directory.path)'
            source = Image.new('RGBA', (64, 64))
            source.putdata([(x * 4, y * 4, 128, 255 - x) for y in range(64) for x in range(64)])
            source.save(d + '/source.png')
            source.save(d + '/png.ico', sizes=[(16, 16), (32, 32), (64, 64)])
            def bitmap(image):
                w, h = image.size
                rows = b''.join(bytes(v for (r, g, b, a) in [image.getpixel((x, y)) for x in range(w)] for v in (b, g, r, a)) for y in reversed(range(h)))
                return struct.pack('<IiiHHIIiiII', 40, w, h * 2, 1, 32, 0, 0, 0, 0, 0, 0) + rows + b'\\x00' * (((w + 31) // 32) * 4 * h)
            def png(image):
                out = io.BytesIO(); image.save(out, 'PNG'); return out.getvalue()
            def ico(entries):
                out, data = struct.pack('<HHH', 0, 1, len(entries)), b''
                for image, bits, entry in entries:
                    w, h = image.size
                    out += struct.pack('<BBBBHHII', w % 256, h % 256, 0, 0, 1, bits, len(entry), 6 + 16 * len(entries) + len(data))
                    data += entry
                return out + data
            small = source.resize((16, 16))
            open(d + '/mixed.ico', 'wb').write(ico([(small, 32, bitmap(small)), (source, 32, png(source))]))
            open(d + '/bitmaps.ico', 'wb').write(ico([(small, 32, bitmap(small)), (source, 32, bitmap(source))]))
            """)
        for file in ["png.ico", "mixed.ico", "bitmaps.ico"] {
            let run = try CommandRunner.run(["run", "--allow-format", "ico", "-e", "load", file, "-o", "\(file).png"], in: directory.path)
            #expect(run.status == 0, "\(file): \(run.standardError)")
            let read = try Image.load(path: directory.file("\(file).png")), source = try Image.load(path: directory.file("source.png"))
            #expect(read.size == Size(64, 64), "\(file)")
            if read.size == source.size { #expect(Self.largestDifference(read, source) == 0, "\(file)") }
            let info = try CommandRunner.run(["info", "--allow-format", "ico", file], in: directory.path)
            #expect(info.standardOutput.hasPrefix("\(file): ICO 64x64"), "\(file): \(info.standardOutput)")
        }
    }
}
