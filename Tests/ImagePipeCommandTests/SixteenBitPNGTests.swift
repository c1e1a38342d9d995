import Foundation
import Testing
import ImagePipe
import TestSupport

/// 16-bit PNG samples are rounded to 8 bits (v · 255 / 65535 to the nearest level), not cut to
/// their high byte as gdk-pixbuf's loader cut them. The files and the rounding expected are
/// made in Python with NumPy, by a writer of their own.
@Suite struct SixteenBitPNGTests {
    @Test func samplesAreRoundedNotTruncated() throws {
        let directory = try TemporaryDirectory()
        try ColorReference.python("""
            import numpy as np, struct, zlib
            d = '\(directory.path)'
            def png(w, h, color_type, rows, chunks=()):
                def chunk(t, data): return struct.pack('>I', len(data)) + t + data + struct.pack('>I', zlib.crc32(t + data) & 0xffffffff)
                ihdr = struct.pack('>IIBBBBB', w, h, 16, color_type, 0, 0, 0)
                raw = b''.join(b'\\x00' + r for r in rows)
                return b'\\x89PNG\\r\\n\\x1a\\n' + chunk(b'IHDR', ihdr) + b''.join(chunk(t, c) for t, c in chunks) + chunk(b'IDAT', zlib.compress(raw)) + chunk(b'IEND', b'')
            w, h = 64, 3
            values = np.array([(i * 1031) % 65536 for i in range(w * h * 4)], dtype='>u2').reshape(h, w, 4)
            values[0, 0] = [0x8100, 0x00FF, 0xFF00, 0xFFFF]   # the high byte gives 129, 0, 255; rounding 128, 1, 254
            open(d + '/rgba16.png', 'wb').write(png(w, h, 6, [values[y].tobytes() for y in range(h)]))
            open(d + '/gray16.png', 'wb').write(png(w, h, 0, [values[y, :, 0].tobytes() for y in range(h)]))
            # 16-bit RGB with a transparent color: that color becomes clear.
            rgb = values[:, :, :3].copy()
            trns = struct.pack('>HHH', *[int(v) for v in rgb[1, 5]])
            open(d + '/trns16.png', 'wb').write(png(w, h, 2, [rgb[y].tobytes() for y in range(h)], [(b'tRNS', trns)]))
            expected = np.floor(values.astype(np.float64) * 255 / 65535 + 0.5).astype(np.uint8)
            open(d + '/expected.raw', 'wb').write(expected.tobytes())
            """)
        let expected = [UInt8](try Data(contentsOf: URL(fileURLWithPath: directory.file("expected.raw"))))
        func sample(_ x: Int, _ y: Int, _ c: Int) -> UInt8 { expected[(y * 64 + x) * 4 + c] }
        #expect([sample(0, 0, 0), sample(0, 0, 1), sample(0, 0, 2)] == [128, 1, 254])
        for file in ["rgba16.png", "gray16.png", "trns16.png"] {
            let result = try CommandRunner.run(["run", "-e", "load", file, "-o", "out-\(file)"], in: directory.path)
            #expect(result.status == 0, "\(result.standardError)")
            let image = try Image.load(path: directory.file("out-\(file)"))
            var differing = 0
            for y in 0..<3 {
                for x in 0..<64 {
                    let p = image.pixel(x: x, y: y)
                    let wanted: [UInt8] = switch file {
                    case "rgba16.png": [sample(x, y, 0), sample(x, y, 1), sample(x, y, 2), sample(x, y, 3)]
                    case "gray16.png": [sample(x, y, 0), sample(x, y, 0), sample(x, y, 0), 255]
                    default: [sample(x, y, 0), sample(x, y, 1), sample(x, y, 2), x == 5 && y == 1 ? 0 : 255]
                    }
                    if [p.red, p.green, p.blue, p.alpha] != wanted && !(wanted[3] == 0 && p.alpha == 0) { differing += 1 }
                }
            }
            #expect(differing == 0, "\(file): \(differing) pixels differ from the rounded samples")
        }
    }
}
