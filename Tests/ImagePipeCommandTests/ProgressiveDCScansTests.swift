import Foundation
import Testing
import ImagePipe
import TestSupport

/// A progressive JPEG decoded at 1/8 of its size reads only the DC scans of the components its
/// 1x1 inverse DCT makes (libjpeg-turbo makes 4:2:0 chroma at 1/8 with a 2x2 one, whose AC scans
/// stay): the pixels are those of the same coefficients written as a baseline JPEG (jpegtran
/// moves them unchanged), and damage in a dropped scan is not read.
@Suite struct ProgressiveDCScansTests {
    /// Progressive JPEGs of every layout cjpeg writes, 301x203 (no side a multiple of 16).
    static func progressiveFiles(in directory: TemporaryDirectory) throws -> [String] {
        try ColorReference.python("""
            from PIL import Image
            im = Image.new('RGB', (301, 203))
            im.putdata([((x * 7 + y * 3) % 256, (x * x + y) % 256, (x ^ y) % 256) for y in range(203) for x in range(301)])
            im.save('\(directory.path)/picture.ppm')
            im.save('\(directory.path)/pillow.jpg', quality=85, subsampling=2, progressive=True)
            """)
        let layouts: [(String, [String])] = [("420", ["-sample", "2x2"]), ("422", ["-sample", "2x1"]), ("444", ["-sample", "1x1"]),
                                             ("gray", ["-grayscale"]), ("restart", ["-sample", "2x2", "-restart", "3B"]),
                                             ("arithmetic", ["-sample", "2x2", "-arithmetic"])]
        var names = ["pillow.jpg"]
        for (name, options) in layouts {
            let made = try CommandRunner.runProgram("/usr/bin/cjpeg", ["-quality", "85", "-progressive"] + options
                                                    + ["-outfile", directory.file("\(name).jpg"), directory.file("picture.ppm")])
            #expect(made.status == 0, "\(name): \(made.standardError)")
            names.append("\(name).jpg")
        }
        return names
    }

    /// The same coefficients as a baseline JPEG.
    static func baseline(of name: String, in directory: TemporaryDirectory) throws -> String {
        let output = directory.file("baseline-\(name)")
        let made = try CommandRunner.runProgram("/usr/bin/jpegtran", ["-copy", "none", "-outfile", output, directory.file(name)])
        #expect(made.status == 0, "\(name): \(made.standardError)")
        return output
    }

    static func eighth(_ path: String) throws -> [UInt8] {
        let image = try Image.load(path: path, options: LoadOptions(atLeast: Size(1, 1)))
        #expect(image.size == Size(38, 26), "\(path): decoded at 1/8")
        return try image.encoded(as: .png)
    }

    @Test func anEighthIsTheWholeFilesPicture() throws {
        let directory = try TemporaryDirectory()
        for name in try Self.progressiveFiles(in: directory) {
            #expect(try Self.eighth(directory.file(name)) == Self.eighth(Self.baseline(of: name, in: directory)), "\(name)")
        }
    }

    /// `explain` says so: only for a progressive file, only at 1/8 (in `fast`, the tightest
    /// reduction; 1/4 for a thumbnail twice as large).
    @Test func explainSaysWhichScansAreRead() throws {
        let directory = try TemporaryDirectory()
        _ = try Self.progressiveFiles(in: directory)
        let baseline = try Self.baseline(of: "420.jpg", in: directory)
        let words = "from the progressive scans that size is made of alone"
        for (input, size, said) in [(directory.file("420.jpg"), "30x20", true), (baseline, "30x20", false), (directory.file("420.jpg"), "60x40", false)] {
            let result = try CommandRunner.run(["explain", "--scaling", "fast", "-e", "resize \(size) fit=fill", input, "-o", directory.file("out.png")])
            #expect(result.status == 0, "\(result.standardError)")
            #expect(result.standardOutput.contains(words) == said, "\(input) \(size): \(result.standardOutput)")
        }
    }

    /// Zeros written over the middle of the luma's first AC scan: the full-size decode refuses the
    /// damage, the 1/8 decode never reads it. A file cut in its AC scans is still told cut.
    @Test func aDroppedScanIsNotRead() throws {
        let directory = try TemporaryDirectory()
        _ = try Self.progressiveFiles(in: directory)
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: directory.file("444.jpg"))))
        let scans = Self.scans(of: bytes)
        let luma = try #require(scans.first { $0.componentIDs == [1] && $0.spectralStart > 0 }, "\(scans)")
        let next = try #require(scans.first { $0.headerAt > luma.headerAt })
        var damaged = bytes
        let middle = luma.dataAt + (next.headerAt - luma.dataAt) / 4
        for index in middle..<middle + (next.headerAt - luma.dataAt) / 2 { damaged[index] = 0 }
        let path = try directory.write(damaged, to: "damaged.jpg")
        #expect(throws: ImageError.self) { try Image.load(path: path) }
        #expect(try Self.eighth(path) == Self.eighth(Self.baseline(of: "444.jpg", in: directory)))
        let cut = try directory.write(Array(bytes[..<(luma.dataAt + 40)]), to: "cut.jpg")
        #expect(throws: ImageError.self) { try Image.load(path: cut, options: LoadOptions(atLeast: Size(1, 1))) }
    }

    struct Scan: CustomStringConvertible {
        let headerAt: Int, dataAt: Int, componentIDs: [UInt8], spectralStart: UInt8
        var description: String { "scan at \(headerAt) of \(componentIDs) from \(spectralStart)" }
    }

    /// Each scan's header offset, entropy-coded data offset, components and spectral start.
    static func scans(of bytes: [UInt8]) -> [Scan] {
        var scans: [Scan] = [], offset = 2
        while offset + 4 <= bytes.count {
            guard bytes[offset] == 0xFF, bytes[offset + 1] != 0x00, bytes[offset + 1] != 0xFF,
                  !(0xD0...0xD7).contains(bytes[offset + 1]) else { offset += 1; continue }
            let length = Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
            if bytes[offset + 1] == 0xDA {
                let count = Int(bytes[offset + 4])
                scans.append(Scan(headerAt: offset, dataAt: offset + 2 + length,
                                  componentIDs: (0..<count).map { bytes[offset + 5 + 2 * $0] }, spectralStart: bytes[offset + 5 + 2 * count]))
            }
            offset += 2 + length
        }
        return scans
    }
}
