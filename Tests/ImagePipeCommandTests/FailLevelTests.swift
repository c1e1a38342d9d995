import Foundation
import Testing
import ImagePipe
import TestSupport

/// `load fail=` levels, as libvips' fail-on: each refuses what the one before it does, and more.
/// Every file here is damaged at one level only, so each level's row differs from its
/// neighbours'.
@Suite struct FailLevelTests {
    static func make(in directory: TemporaryDirectory) throws {
        try ColorReference.python("""
            import zlib, struct, io
            from PIL import Image
            d = '\(directory.path)'
            im = Image.new('RGB', (61, 37))
            im.putdata([((x * 4) % 256, (y * 7) % 256, (x * y) % 256) for y in range(37) for x in range(61)])
            def chunk(kind, data, crc=None):
                crc = zlib.crc32(kind + data) & 0xffffffff if crc is None else crc
                return struct.pack('>I', len(data)) + kind + data + struct.pack('>I', crc)
            ihdr = chunk(b'IHDR', struct.pack('>IIBBBBB', 61, 37, 8, 2, 0, 0, 0))
            raw = b''.join(b'\\x00' + im.crop((0, y, 61, y + 1)).tobytes() for y in range(37))
            stream = zlib.compress(raw)
            sig, end = b'\\x89PNG\\r\\n\\x1a\\n', chunk(b'IEND', b'')
            # An ancillary chunk whose CRC fails: libpng warns and passes over it.
            open(d + '/ancillary-crc.png', 'wb').write(sig + ihdr + chunk(b'tEXt', b'Comment\\x00hello', crc=1) + chunk(b'IDAT', stream) + end)
            # The file cut in its image data: it ends early.
            whole = sig + ihdr + chunk(b'IDAT', stream) + end
            open(d + '/cut.png', 'wb').write(whole[:len(whole) * 6 // 10])
            # A whole stream whose Adler-32 fails: damaged, not cut.
            bad = bytearray(stream); bad[-1] ^= 0xff
            open(d + '/bad-adler.png', 'wb').write(sig + ihdr + chunk(b'IDAT', bytes(bad)) + end)
            out = io.BytesIO(); im.save(out, 'JPEG', quality=90); jpeg = out.getvalue()
            assert jpeg[-2:] == b'\\xff\\xd9' and jpeg[6:11] == b'JFIF\\x00'
            open(d + '/cut.jpg', 'wb').write(jpeg[:len(jpeg) * 6 // 10])
            # Bits flipped in the entropy-coded data, the file whole: corrupt data, not cut.
            start = jpeg.index(b'\\xff\\xda'); start += 2 + struct.unpack('>H', jpeg[start + 2:start + 4])[0]
            flipped = bytearray(jpeg)
            for k in range(start + 40, len(jpeg) - 10, 37):
                if flipped[k] != 0xff and flipped[k - 1] != 0xff: flipped[k] ^= 0x5a
            open(d + '/flipped.jpg', 'wb').write(bytes(flipped))
            # JFIF version 2.01, which libjpeg warns of and decodes all the same.
            open(d + '/jfif2.jpg', 'wb').write(jpeg[:11] + b'\\x02\\x01' + jpeg[13:])
            # Bytes between two segments that start no marker, which libjpeg warns of and passes over.
            tables = jpeg.index(b'\\xff\\xdb')
            open(d + '/stray.jpg', 'wb').write(jpeg[:tables] + b'\\x00\\x11\\x22' + jpeg[tables:])
            # An empty eXIf chunk, which libpng warns of and passes over.
            open(d + '/empty-exif.png', 'wb').write(sig + ihdr + chunk(b'eXIf', b'') + chunk(b'IDAT', stream) + end)
            """)
    }

    /// Whether each level takes the file (true) or refuses it, in the order none, truncated,
    /// error, warning.
    @Test(arguments: [
        ("ancillary-crc.png", [true, true, true, false]),
        ("cut.png", [true, false, false, false]),
        ("bad-adler.png", [true, true, false, false]),
        ("cut.jpg", [true, false, false, false]),
        ("flipped.jpg", [true, true, false, false]),
        ("jfif2.jpg", [true, true, true, false]),
        ("stray.jpg", [true, true, true, false]),
        ("empty-exif.png", [true, true, true, false]),
    ])
    func eachLevelRefusesItsOwnDamageAndLess(file: String, taken: [Bool]) throws {
        let directory = try TemporaryDirectory()
        try Self.make(in: directory)
        for (level, expected) in zip(FailOn.allCases, taken) {
            let output = "out-\(level).png"
            let result = try CommandRunner.run(["run", "-e", "load fail=\(level) | flip", file, "-o", output], in: directory.path)
            #expect((result.status == 0) == expected, "\(file) at fail=\(level): \(result.standardError)")
            #expect(FileManager.default.fileExists(atPath: directory.file(output)) == expected, "\(file) at fail=\(level)")
            if !expected { #expect(result.standardError.contains("\(file): corrupt image:"), "\(result.standardError)") }
        }
        // libvips' older fail=true and fail=false are error and none; error is the default.
        for (word, level) in [("true", FailOn.error), ("false", .none)] {
            let result = try CommandRunner.run(["run", "-e", "load fail=\(word) | flip", file, "-o", "out.png"], in: directory.path)
            #expect((result.status == 0) == taken[FailOn.allCases.firstIndex(of: level)!], "\(file) at fail=\(word)")
        }
        let plain = try CommandRunner.run(["run", "-e", "flip", file, "-o", "plain.png"], in: directory.path)
        #expect((plain.status == 0) == taken[2], "\(file) by default")
    }

    @Test func theOlderWordsAreWrittenAsTheirLevels() throws {
        let older = try CommandRunner.run(["check", "-e", "load fail=false | flip"])
        #expect(older.status == 0 && older.standardOutput.hasPrefix("load fail=none\n"), "\(older.standardOutput)")
        let strict = try CommandRunner.run(["check", "-e", "load fail=true | flip"])
        #expect(strict.status == 0 && strict.standardOutput.hasPrefix("load\n"), "the default: \(strict.standardOutput)")
        let unknown = try CommandRunner.run(["check", "-e", "load fail=sometimes"])
        #expect(unknown.status != 0 && unknown.standardError.contains("none, truncated, error, warning"), "\(unknown.standardError)")
    }
}
