import Foundation
import ImagePipe
import Testing
import TestSupport

/// Run-length encoded BMPs (RLE8) made like bmpsuite's: damaged data is refused at its
/// `load fail=` level, as Chromium refuses it, where gdk-pixbuf's loader drew what it could and
/// left the rest transparent with exit 0; a picture that ends with its end marker early is read
/// as browsers show it.
@Suite struct BMPRunLengthTests {
    static func make(in directory: TemporaryDirectory) throws {
        try ColorReference.python("""
            import struct
            d = '\(directory.path)'
            def bmp(data):
                palette = b''.join(bytes((b, g, r, 0)) for (r, g, b) in [(0, 0, 0), (255, 0, 0), (0, 255, 0), (0, 0, 255)])
                offset = 14 + 40 + len(palette)
                info = struct.pack('<IiiHHIIiiII', 40, 8, 4, 1, 8, 1, len(data), 2835, 2835, 4, 0)
                return b'BM' + struct.pack('<IHHI', offset + len(data), 0, 0, offset) + info + palette + data
            # Rows bottom up: a run of 8, two runs of 4, 8 pixels as they are, a run of 8; then the end marker.
            rows = [bytes([8, 1, 0, 0]), bytes([4, 2, 4, 3, 0, 0]), bytes([0, 8, 1, 2, 3, 1, 2, 3, 1, 2, 0, 0]), bytes([8, 3, 0, 1])]
            files = {
                'good': b''.join(rows),
                'run-past-row': bytes([9, 1, 0, 0]) + b''.join(rows[1:]),
                'delta-past': bytes([0, 2, 12, 0, 0, 0]) + b''.join(rows[1:]),
                'cut': b''.join(rows[:2]),
                'early-end': rows[0][:2] + bytes([0, 1]),
            }
            for name, data in files.items():
                open(d + '/' + name + '.bmp', 'wb').write(bmp(data))
            """)
    }

    @Test func goodRunLengthDataIsRead() throws {
        let directory = try TemporaryDirectory()
        try Self.make(in: directory)
        let run = try CommandRunner.run(["run", "-e", "load", "good.bmp", "-o", "good.png"], in: directory.path)
        #expect(run.status == 0, "\(run.standardError)")
        let image = try Image.load(path: directory.file("good.png"))
        #expect(image.pixel(x: 0, y: 3) == Color(red: 255, green: 0, blue: 0, alpha: 255))
        #expect(image.pixel(x: 5, y: 2) == Color(red: 0, green: 0, blue: 255, alpha: 255))
        #expect(image.pixel(x: 1, y: 1) == Color(red: 0, green: 255, blue: 0, alpha: 255))
        #expect(image.pixel(x: 7, y: 0) == Color(red: 0, green: 0, blue: 255, alpha: 255))
    }

    /// Whether each level takes the file, in the order none, truncated, error, warning.
    @Test(arguments: [
        ("run-past-row.bmp", [true, true, false, false], "runs past the end of row 0"),
        ("delta-past.bmp", [true, true, false, false], "moves past the picture"),
        ("cut.bmp", [true, false, false, false], "ends after 2 of its 4 rows"),
        ("early-end.bmp", [true, true, true, true], ""),
    ])
    func damagedRunLengthDataIsRefusedAtItsLevel(file: String, taken: [Bool], reason: String) throws {
        let directory = try TemporaryDirectory()
        try Self.make(in: directory)
        for (level, expected) in zip(FailOn.allCases, taken) {
            let result = try CommandRunner.run(["run", "-e", "load fail=\(level)", file, "-o", "out-\(level).png"], in: directory.path)
            #expect((result.status == 0) == expected, "\(file) at fail=\(level): \(result.standardError)")
            if !expected { #expect(result.standardError.contains("\(file): corrupt image: the BMP's run-length data \(reason)"), "\(result.standardError)") }
        }
    }
}
