import Foundation
@testable import ImagePipe
import ImagePipeCore
import Testing
import TestSupport

/// JPEG XL through libjxl: small pictures made here round-trip (lossless exactly, lossy within a
/// PSNR bound), with alpha, gray, 16 bits, frames, a profile, metadata and the orientation;
/// cut and damaged files are refused as their `fail=` level says; a JPEG recompressed by `save
/// lossless=true` gives the JPEG back bit for bit through libjxl's own `djxl`.
@Suite struct JXLCodecTests {
    static func samples(of image: Image) -> [UInt8] { (0..<image.height).flatMap { Array(image.row($0)) } }

    /// Peak signal-to-noise ratio in dB of two pictures' samples.
    static func psnr(_ a: [UInt8], _ b: [UInt8]) -> Double {
        let squared = zip(a, b).reduce(0.0) { $0 + pow(Double($1.0) - Double($1.1), 2) } / Double(a.count)
        return squared == 0 ? .infinity : 10 * log10(255 * 255 / squared)
    }

    /// A picture with something in every channel: a ramp, a stripe pattern, and (with alpha) a
    /// transparency ramp the other way.
    static func picture(alpha: Bool = false) throws -> Image {
        try Synthetic.image(37, 23, alpha: alpha) { x, y in
            Color(red: UInt8(x * 255 / 36), green: UInt8(y * 255 / 22), blue: (x / 4 + y / 4) % 2 == 0 ? 40 : 210,
                  alpha: alpha ? UInt8(255 - x * 6) : 255)
        }
    }

    /// An EXIF block (TIFF-structured) holding orientation 1 alone.
    static let exif: [UInt8] = [0x49, 0x49, 0x2A, 0x00, 0x08, 0x00, 0x00, 0x00, 0x01, 0x00, 0x12, 0x01, 0x03, 0x00, 0x01, 0x00, 0x00, 0x00,
                                0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00]

    static func encoded(_ image: Image, _ options: SaveOptions) throws -> [UInt8] { try image.encoded(as: .jxl, options: options) }

    /// libjxl's tools, `cjxl` and `djxl` (libjxl-tools).
    static func tool(_ name: String, _ arguments: [String]) throws {
        let result = try CommandRunner.runProgram("/usr/bin/\(name)", arguments)
        guard result.status == 0 else { throw ImageError(.unreadable, reason: "\(name) \(arguments): \(result.standardError)") }
    }

    @Test func bothSignaturesAreSniffed() throws {
        let bare = try Self.encoded(Self.picture(), SaveOptions(lossless: true))
        #expect(Array(bare.prefix(2)) == [0xFF, 0x0A])
        #expect(ImageFormat.sniff(bare) == .jxl)
        var keep = SaveOptions(lossless: true, keep: .all)
        keep.profile = .auto
        let withExif = try Self.picture().withMetadata(ImageMetadata(exif: Self.exif))
        let container = try withExif.encoded(as: .jxl, options: keep)
        #expect(Array(container.prefix(8)) == [0, 0, 0, 0x0C, 0x4A, 0x58, 0x4C, 0x20])
        #expect(ImageFormat.sniff(container) == .jxl)
        #expect(try Image.decode(container).size == Size(37, 23))
    }

    @Test(arguments: [false, true])
    func losslessIsExact(alpha: Bool) throws {
        let image = try Self.picture(alpha: alpha)
        let decoded = try Image.decode(Self.encoded(image, SaveOptions(lossless: true)))
        #expect(decoded.hasAlpha == alpha)
        #expect(Self.samples(of: decoded) == Self.samples(of: image))
    }

    @Test func lossyIsCloseAndSmaller() throws {
        let image = try Synthetic.gradient(96, 64)
        let fine = try Self.encoded(image, SaveOptions(quality: 90))
        let coarse = try Self.encoded(image, SaveOptions(quality: 30))
        let decoded = try Image.decode(fine)
        #expect(decoded.size == image.size)
        let quality = Self.psnr(Self.samples(of: decoded), Self.samples(of: image))
        #expect(quality > 38, "PSNR \(quality) dB at quality 90")
        #expect(coarse.count < fine.count)
        let info = try ImageInfo.read(bytes: fine, path: "fine.jxl")
        #expect(info.coding.colorSpace == "XYB" && info.coding.lossless == false)
    }

    /// Quality becomes a distance as cjxl and libvips map it (continuous at 30).
    @Test func qualityMapsToDistance() {
        #expect(JXLWriter.distance(quality: 90) == 1.0)
        #expect(abs(JXLWriter.distance(quality: 75) - 2.35) < 1e-5)
        #expect(abs(JXLWriter.distance(quality: 30) - 6.4) < 1e-4 && abs(JXLWriter.distance(quality: 29) - 6.4) < 1.2)
        #expect(JXLWriter.distance(quality: 0) == 25)
    }

    /// Gray and 16-bit files from cjxl (lossless): gray comes as R = G = B, 16-bit samples
    /// rounded to 8 bits.
    @Test func grayAnd16BitFromCJXL() throws {
        let directory = try TemporaryDirectory()
        // A 16-bit gray and alpha PAM: v = 257 · x + 128 · y, alpha the other way.
        let (width, height) = (40, 3)
        var pam = Array("P7\nWIDTH \(width)\nHEIGHT \(height)\nDEPTH 2\nMAXVAL 65535\nTUPLTYPE GRAYSCALE_ALPHA\nENDHDR\n".utf8)
        var expected: [UInt8] = []
        for y in 0..<height {
            for x in 0..<width {
                let value = min(65535, 1601 * x + 128 * y), alpha = 65535 - 1500 * x
                pam += [UInt8(value >> 8), UInt8(value & 0xFF), UInt8(alpha >> 8), UInt8(alpha & 0xFF)]
                let gray = UInt8((Double(value) * 255 / 65535).rounded()), opacity = UInt8((Double(alpha) * 255 / 65535).rounded())
                expected += [gray, gray, gray, opacity]
            }
        }
        let source = try directory.write(pam, to: "gray16.pam"), jxl = directory.file("gray16.jxl")
        try Self.tool("cjxl", [source, jxl, "-d", "0", "-e", "1"])
        let decoded = try Image.load(path: jxl)
        #expect(decoded.hasAlpha)
        let differences = zip(Self.samples(of: decoded), expected).map { abs(Int($0) - Int($1)) }
        #expect(differences.max() ?? 99 <= 1, "largest difference \(differences.max() ?? -1)")
        let info = try ImageInfo.read(path: jxl)
        #expect(info.coding.bitDepth == 16 && info.coding.channels == 2 && info.coding.colorSpace == "gray")
    }

    @Test func framesRoundTripWithDelaysAndLoops() throws {
        var options = SaveOptions(lossless: true)
        options.loop = 3
        let encoder = try #require(AnimationEncoding.encoder(for: .jxl, options: options, plays: nil))
        let colors = [Color(red: 255, green: 0, blue: 0), Color(red: 0, green: 200, blue: 0), Color(red: 10, green: 20, blue: 250)]
        for (index, color) in colors.enumerated() {
            try encoder.add(Synthetic.image(16, 12) { x, _ in x < 8 ? color : Color(red: 9, green: 9, blue: 9) }, delay: 40 * (index + 1))
        }
        let bytes = try encoder.finish().joined
        let header = try ImageHeader.read(bytes: bytes)
        #expect(header.frameCount == 3)
        let facts = CodingFacts.read(bytes, format: .jxl)
        #expect(facts.delays == [40, 80, 120] && facts.plays == 3)
        let decoder = try #require(try AnimationDecoding.decoder(for: bytes, format: .jxl, failOnDamage: true, path: nil))
        #expect(decoder.canvas == Size(16, 12) && decoder.plays == 3)
        var frames: [AnimationFrame] = []
        while let frame = try decoder.next() { frames.append(frame) }
        #expect(frames.map(\.delay) == [40, 80, 120])
        for (frame, color) in zip(frames, colors) {
            #expect(frame.image.pixel(x: 2, y: 2) == color && frame.image.pixel(x: 12, y: 2) == Color(red: 9, green: 9, blue: 9))
        }
        // A still decode is the first frame.
        #expect(try Image.decode(bytes).pixel(x: 2, y: 2) == colors[0])
    }

    /// A profile goes into the file and comes back; the pixels are converted to sRGB on load
    /// as a PNG's would be, and kept with `color=keep`.
    @Test func profileIsKeptAndConverted() throws {
        let p3 = ColorReference.displayP3()
        let image = try Synthetic.image(8, 8) { _, _ in Color(red: 200, green: 120, blue: 60) }
            .withMetadata(ImageMetadata(iccProfile: p3, sourceProfile: p3))
        let bytes = try image.encoded(as: .jxl, options: SaveOptions(lossless: true, profile: .keep))
        let metadata = try JXLDecoder.metadata(of: bytes, path: nil)
        let profile = try #require(metadata.sourceProfile.flatMap { try? ICCProfile(bytes: $0) })
        #expect(profile.space == .rgb && !profile.isSRGB)
        let kept = try Image.decode(bytes, options: LoadOptions(color: .keep))
        #expect(kept.pixel(x: 3, y: 3) == Color(red: 200, green: 120, blue: 60))
        let converted = try Image.decode(bytes)
        let reference = try Synthetic.image(8, 8) { _, _ in Color(red: 200, green: 120, blue: 60) }
            .converted(from: ICCProfile(bytes: p3), to: .sRGB, intent: .perceptual)
        #expect(Synthetic.close(converted.pixel(x: 3, y: 3), reference.pixel(x: 3, y: 3), tolerance: 2), "\(converted.pixel(x: 3, y: 3)) against \(reference.pixel(x: 3, y: 3))")
    }

    @Test func exifAndXMPBoxesRoundTrip() throws {
        let exif = Self.exif
        let xmp = Array("<x:xmpmeta xmlns:x=\"adobe:ns:meta/\"><rdf:RDF/></x:xmpmeta>".utf8)
        let image = try Self.picture().withMetadata(ImageMetadata(exif: exif, xmp: xmp))
        let bytes = try image.encoded(as: .jxl, options: SaveOptions(quality: 80, keep: .all))
        let metadata = try JXLDecoder.metadata(of: bytes, path: nil)
        #expect(metadata.exif == exif && metadata.xmp == xmp)
        let decoded = try Image.decode(bytes)
        #expect(decoded.metadata.exif == exif && decoded.metadata.xmp == xmp)
        let info = try ImageInfo.read(bytes: bytes, path: "meta.jxl")
        #expect(info.hasXMP && info.exif != nil)
        // keep=none writes neither.
        let bare = try JXLDecoder.metadata(of: image.encoded(as: .jxl, options: SaveOptions(quality: 80)), path: nil)
        #expect(bare.exif == nil && bare.xmp == nil)
    }

    /// The codestream's orientation (cjxl takes a JPEG's EXIF orientation into it) turns the
    /// picture on load, and only then.
    @Test func orientationIsApplied() throws {
        let directory = try TemporaryDirectory()
        let jpeg = Synthetic.withExifOrientation(try Synthetic.halves(32, 16).encoded(as: .jpeg, options: SaveOptions(quality: 95)), orientation: 6)
        let source = try directory.write(jpeg, to: "turned.jpg"), jxl = directory.file("turned.jxl")
        try Self.tool("cjxl", [source, jxl, "--lossless_jpeg=1"])
        let header = try ImageHeader.read(path: jxl)
        #expect(header.orientation == 6 && header.storedSize == Size(32, 16))
        let upright = try Image.load(path: jxl)
        #expect(upright.size == Size(16, 32))
        // Orientation 6 turns a quarter clockwise: the left half (red) goes to the top.
        #expect(upright.pixel(x: 8, y: 2).red > 200 && upright.pixel(x: 8, y: 29).blue > 200)
        let stored = try Image.load(path: jxl, options: LoadOptions(applyOrientation: false))
        #expect(stored.size == Size(32, 16))
    }

    @Test func cutFilesAreRefusedUnlessTaken() throws {
        // Detail in several 256-pixel groups, so that a cut leaves the first of them whole.
        let detailed = try Synthetic.image(640, 480) { x, y in
            Color(red: UInt8((x * 7 + y * 13) % 256), green: UInt8((x * x / 16 + y) % 256), blue: UInt8((x ^ y) & 0xFF))
        }
        let bytes = try Self.encoded(detailed, SaveOptions(quality: 90, effort: 3))
        let cut = Array(bytes.prefix(bytes.count * 2 / 3))
        #expect(throws: ImageError.self) { try Image.decode(cut) }
        do {
            _ = try Image.decode(cut)
        } catch let error as ImageError {
            #expect(error.kind == .corrupt && error.reason.contains("cut short"), "\(error)")
        }
        // fail=none takes what libjxl decoded so far.
        let taken = try Image.decode(cut, options: LoadOptions(failOn: .none))
        #expect(taken.size == Size(640, 480))
        #expect(Synthetic.close(taken.pixel(x: 20, y: 20), detailed.pixel(x: 20, y: 20), tolerance: 24),
                "\(taken.pixel(x: 20, y: 20)) against \(detailed.pixel(x: 20, y: 20))")
        // Cut within the header: nothing to take.
        #expect(throws: ImageError.self) { try Image.decode(Array(bytes.prefix(6)), options: LoadOptions(failOn: .none)) }
    }

    @Test func damagedFilesAreRefused() throws {
        var bytes = try Self.encoded(Synthetic.gradient(64, 48), SaveOptions(quality: 90))
        for index in stride(from: 20, to: bytes.count, by: 7) { bytes[index] ^= 0xA5 }
        #expect(throws: ImageError.self) { try Image.decode(bytes) }
        // A signature and nothing sensible after it.
        #expect(throws: ImageError.self) { try Image.decode([0xFF, 0x0A] + [UInt8](repeating: 0xFF, count: 64)) }
    }

    @Test func pixelLimitIsCheckedFromTheHeader() throws {
        let bytes = try Self.encoded(Synthetic.gradient(64, 48), SaveOptions(quality: 90))
        #expect(try ImageHeader.read(bytes: bytes).storedSize == Size(64, 48))
        do {
            _ = try Image.decode(bytes, options: LoadOptions(maxPixels: 1000))
            Issue.record("a 64x48 picture passed a 1000-pixel limit")
        } catch let error as ImageError {
            #expect(error.kind == .tooLarge, "\(error)")
        }
    }

    /// `save x.jxl lossless=true` of a JPEG through no stage recompresses the JPEG: djxl gives
    /// it back bit for bit. With a stage between, the pixels are coded losslessly instead.
    @Test func jpegIsRecompressedAndReconstructed() throws {
        let directory = try TemporaryDirectory()
        let jpeg = try Self.picture().encoded(as: .jpeg, options: SaveOptions(quality: 85))
        let source = try directory.write(jpeg, to: "photo.jpg")
        let recompressed = directory.file("photo.jxl")
        let run = try CommandRunner.run(["run", "-e", "save lossless=true", source, "-o", recompressed])
        #expect(run.status == 0, "\(run.standardError)")
        let walked = try JXLStream(bytes: Array(Data(contentsOf: URL(fileURLWithPath: recompressed))), events: [], threaded: false, path: nil)
        while try walked.next() != .success {}
        #expect(walked.reconstructsJPEG)
        let back = directory.file("back.jpg")
        try Self.tool("djxl", [recompressed, back])
        #expect(Array(try Data(contentsOf: URL(fileURLWithPath: back))) == jpeg)
        // Decoded by ImagePipe, it is the JPEG's picture (libjxl's and libjpeg's IDCT differ a little).
        let ours = try Image.load(path: recompressed), theirs = try Image.decode(jpeg)
        #expect(Self.psnr(Self.samples(of: ours), Self.samples(of: theirs)) > 40)

        let turned = directory.file("turned.jxl")
        let staged = try CommandRunner.run(["run", "-e", "rotate 90 | save lossless=true", source, "-o", turned])
        #expect(staged.status == 0, "\(staged.standardError)")
        let stream = try JXLStream(bytes: Array(Data(contentsOf: URL(fileURLWithPath: turned))), events: [], threaded: false, path: nil)
        while try stream.next() != .success {}
        #expect(!stream.reconstructsJPEG)
        #expect(try Image.load(path: turned).size == Size(23, 37))
    }

    @Test func effortOutsideTheFormatsRangeIsRefused() throws {
        let directory = try TemporaryDirectory()
        let source = try directory.write(try Synthetic.gradient(8, 8).encoded(as: .png), to: "a.png")
        let webp = try CommandRunner.run(["run", "-e", "save format=webp effort=8", source, "-o", directory.file("a.webp")])
        #expect(webp.status != 0 && webp.standardError.contains("0–6"), "\(webp.standardError)")
        let jxl = try CommandRunner.run(["run", "-e", "save format=jxl effort=9", source, "-o", directory.file("a.jxl")])
        #expect(jxl.status == 0, "\(jxl.standardError)")
    }
}
