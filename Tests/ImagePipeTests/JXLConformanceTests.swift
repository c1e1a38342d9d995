import Foundation
@testable import ImagePipe
import ImagePipeCore
import Testing
import TestSupport

/// libjxl's own test files (Debian's libjxl-testdata) and files made from its sources by its
/// own `cjxl`, each with the class it is expected in and the reference decoder that decided it:
/// `right` (decoded as the reference decodes it, its PNG read back by ImagePipe, within
/// `tolerance`; animations frame by frame against the frames the suite ships) or `refused` (a
/// clear error, no picture). The reference is libjxl's `djxl`, or libvips (on the same libjxl)
/// where djxl 0.7 cannot write the PNG (16-bit with alpha) or writes it wrong (12-bit). No file of
/// the suite is `unsupported`; a CMYK JPEG XL would be.
@Suite struct JXLConformanceTests {
    static let suite = "/usr/share/libjxl-testdata/jxl"

    enum Expected: Equatable {
        /// Each sample within this many levels of djxl's.
        case right(tolerance: Int)
        case refused
    }

    enum Reference: String, Sendable {
        case djxl, vips
    }

    struct Case: CustomStringConvertible, Sendable {
        /// The suite's .jxl file, or the suite's source that cjxl makes one of.
        let file: String
        /// cjxl's arguments when `file` is a source to encode; nil for a .jxl of the suite.
        let cjxl: [String]?
        let expected: Expected
        var reference = Reference.djxl
        /// Why it is in the class it is.
        let note: String
        var description: String { file }
    }

    static let cases: [Case] = [
        Case(file: "boxes/square-extended-size-container.jxl", cjxl: nil, expected: .right(tolerance: 0),
             note: "its codestream box runs to the end of the file (size 0 in a 64-bit size)"),
        Case(file: "jpeg_reconstruction/1x1_exif_xmp.jxl", cjxl: nil, expected: .right(tolerance: 0),
             note: "a recompressed JPEG with EXIF and XMP boxes"),
        Case(file: "pq_gradient.jxl", cjxl: nil, expected: .right(tolerance: 3),
             note: "16-bit gray in PQ (HDR): converted to sRGB from the profile libjxl states; djxl's 16-bit PNG is rounded before ImagePipe converts it"),
        Case(file: "spline_on_first_frame.jxl", cjxl: nil, expected: .right(tolerance: 0), note: "splines drawn on a frame"),
        Case(file: "splines.jxl", cjxl: nil, expected: .right(tolerance: 0), note: "splines"),
        Case(file: "flower/flower_small.g.depth1.pgm", cjxl: ["-d", "0", "-e", "1"], expected: .right(tolerance: 0), note: "1-bit gray"),
        Case(file: "flower/flower_small.g.depth8.pgm", cjxl: ["-d", "0", "-e", "1"], expected: .right(tolerance: 0), note: "8-bit gray"),
        Case(file: "flower/flower_small.ga.depth16.pam", cjxl: ["-d", "0", "-e", "1"], expected: .right(tolerance: 1), reference: .vips,
             note: "16-bit gray and alpha, rounded (djxl 0.7 writes no PNG of it: 'Alpha bit depth does not match')"),
        Case(file: "flower/flower_small.rgb.depth12.ppm", cjxl: ["-d", "0", "-e", "1"], expected: .right(tolerance: 0), reference: .vips,
             note: "12 bits: cjxl 0.7 codes the PPM's samples as if they were 16-bit (the picture is dark, to libvips as to ImagePipe), and djxl 0.7's 16-bit PNG of it is garbled"),
        Case(file: "flower/flower_small.rgba.depth16.pam", cjxl: ["-d", "0", "-e", "1"], expected: .right(tolerance: 1), reference: .vips,
             note: "16-bit RGBA, rounded (djxl 0.7 writes no PNG of it)"),
        Case(file: "flower/flower_small.rgb.depth8.ppm", cjxl: ["-d", "1", "-e", "3"], expected: .right(tolerance: 1), note: "lossy (XYB)"),
        Case(file: "flower/flower_small.q85_420_non_interleaved.jpg", cjxl: ["--lossless_jpeg=1"], expected: .right(tolerance: 0),
             note: "a recompressed 4:2:0 JPEG of non-interleaved scans"),
        Case(file: "flower/flower_small.q85_444_partially_interleaved.jpg", cjxl: ["--lossless_jpeg=1"], expected: .right(tolerance: 0),
             note: "a recompressed 4:4:4 JPEG of partly interleaved scans"),
    ]

    /// A .jxl of the case: the suite's, or cjxl's of its source, in `directory`.
    static func jxl(of entry: Case, in directory: TemporaryDirectory) throws -> String {
        guard let arguments = entry.cjxl else { return "\(suite)/\(entry.file)" }
        let made = directory.file(URL(fileURLWithPath: entry.file).lastPathComponent + ".jxl")
        try JXLCodecTests.tool("cjxl", ["\(suite)/\(entry.file)", made] + arguments)
        return made
    }

    @Test(arguments: cases)
    func decodesAsDjxl(_ entry: Case) throws {
        let directory = try TemporaryDirectory()
        let file = try Self.jxl(of: entry, in: directory)
        let reference = directory.file("reference.png")
        switch entry.reference {
        case .djxl: try JXLCodecTests.tool("djxl", [file, reference])
        case .vips: try JXLCodecTests.tool("vips", ["copy", file, reference])
        }
        switch entry.expected {
        case let .right(tolerance):
            let ours = try Image.load(path: file), theirs = try Image.load(path: reference)
            #expect(ours.size == theirs.size, "\(entry.file): \(ours.size) against \(theirs.size)")
            // A gray PNG with alpha comes with alpha; djxl leaves an opaque file's alpha out.
            let compared = ours.hasAlpha == theirs.hasAlpha ? (ours, theirs) : (try ours.flattened(onto: .white), try theirs.flattened(onto: .white))
            let a = JXLCodecTests.samples(of: compared.0), b = JXLCodecTests.samples(of: compared.1)
            let largest = zip(a, b).map { abs(Int($0) - Int($1)) }.max() ?? 0
            #expect(a.count == b.count && largest <= tolerance, "\(entry.file) (\(entry.note)): largest difference \(largest)")
        case .refused:
            #expect(throws: ImageError.self) { try Image.load(path: file) }
        }
    }

    /// The suite's animation, composed by libjxl, against the four frames the suite ships as PNG.
    @Test func animationFramesAreTheSuites() throws {
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: "\(Self.suite)/blending/cropped_traffic_light.jxl")))
        #expect(try ImageHeader.read(bytes: bytes).frameCount == 4)
        let decoder = try #require(try AnimationDecoding.decoder(for: bytes, format: .jxl, failOnDamage: true, path: nil))
        var index = 0
        while let frame = try decoder.next() {
            let expected = try Image.load(path: "\(Self.suite)/blending/cropped_traffic_light_frame-\(index).png")
            let ours = frame.image
            #expect(ours.size == expected.size)
            let a = JXLCodecTests.samples(of: ours.hasAlpha == expected.hasAlpha ? ours : try ours.flattened(onto: .white))
            let b = JXLCodecTests.samples(of: ours.hasAlpha == expected.hasAlpha ? expected : try expected.flattened(onto: .white))
            let largest = zip(a, b).map { abs(Int($0) - Int($1)) }.max() ?? 0
            #expect(largest <= 1, "frame \(index): largest difference \(largest)")
            index += 1
        }
        #expect(index == 4)
    }

    /// A recompressed JPEG of the suite keeps its boxes and gives the JPEG back through djxl.
    @Test func reconstructionFileKeepsItsJPEG() throws {
        let directory = try TemporaryDirectory()
        let file = "\(Self.suite)/jpeg_reconstruction/1x1_exif_xmp.jxl"
        let metadata = try JXLDecoder.metadata(of: Array(Data(contentsOf: URL(fileURLWithPath: file))), path: file)
        #expect(metadata.exif != nil && metadata.xmp != nil)
        let back = directory.file("back.jpg")
        try JXLCodecTests.tool("djxl", [file, back])
        #expect(try Data(contentsOf: URL(fileURLWithPath: back)) == Data(contentsOf: URL(fileURLWithPath: "\(Self.suite)/jpeg_reconstruction/1x1_exif_xmp.jpg")))
    }

    /// Every file of the suite cut short, or with bytes changed in its coded data, is refused.
    @Test(arguments: ["splines.jxl", "pq_gradient.jxl", "blending/cropped_traffic_light.jxl", "jpeg_reconstruction/1x1_exif_xmp.jxl"])
    func damagedSuiteFilesAreRefused(_ file: String) throws {
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: "\(Self.suite)/\(file)")))
        #expect(throws: ImageError.self, "\(file) cut") { try Image.decode(Array(bytes.prefix(bytes.count - 9))) }
    }
}
