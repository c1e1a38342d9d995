import Foundation
import ImagePipe
import ImagePipeCore
import Testing

/// Public test suites' files (Tests/Fixtures/suites: PngSuite, bmpsuite, Pillow's test images,
/// libwebp's test data, AVIFs made with avifenc; its README.md says where from and under what
/// terms), each
/// with its expected class in manifest.json and the reference decoder that decided it:
/// `right` (decoded within `tolerance` of the reference decode stored beside it), `refused` (a
/// clear error) or `unsupported` (an error that says so). Every file is decoded as `imagepipe run`
/// decodes an input: `Image.load` at the default damage policy (`fail=error`), EXIF orientation
/// applied, colors converted to sRGB, ICO allowed as `--allow-format ico` allows it.
/// `Benchmarks/suites.py` remakes the manifest and the references; this test reads only the
/// committed files.
@Suite struct SuiteConformanceTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/suites")

    struct Manifest: Decodable {
        let files: [Entry]
    }

    struct Entry: Decodable {
        let file: String
        let `class`: String
        let reference: String
        let note: String?
        let tolerance: Int?
        /// A floor for the whole picture's PSNR (dB), for lossy formats whose decoders differ at edges.
        let psnr: Double?
        let picture: String?
    }

    static func manifest() throws -> Manifest {
        try JSONDecoder().decode(Manifest.self, from: Data(contentsOf: folder.appendingPathComponent("manifest.json")))
    }

    /// ICO is read only when allowed (`--allow-format ico`); the suites' icons are meant to be read.
    static let options = LoadOptions(allowedFormats: ImageFormat.vetted.union([.ico]))

    /// The largest difference between two pictures and their PSNR, each color weighted by its
    /// alpha (the color of a fully transparent pixel is not seen, and decoders differ in it); a
    /// picture without alpha is opaque. Nil when the sizes differ.
    static func difference(_ ours: Image, _ reference: Image) -> (largest: Int, psnr: Double)? {
        guard ours.size == reference.size else { return nil }
        var largest = 0, squares = 0.0
        for y in 0..<ours.height {
            let a = ours.row(y), b = reference.row(y)
            for x in 0..<ours.width {
                let i = x * ours.channelCount, j = x * reference.channelCount
                let alphaA = ours.hasAlpha ? Int(a[i + 3]) : 255, alphaB = reference.hasAlpha ? Int(b[j + 3]) : 255
                var differences = [alphaA - alphaB, 0, 0, 0]
                for channel in 0..<3 {
                    differences[channel + 1] = Int(a[i + channel]) * alphaA / 255 - Int(b[j + channel]) * alphaB / 255
                }
                for difference in differences {
                    largest = max(largest, abs(difference))
                    squares += Double(difference * difference)
                }
            }
        }
        let mean = squares / Double(max(1, ours.width * ours.height * 4))
        return (largest, mean == 0 ? .infinity : 10 * log10(255 * 255 / mean))
    }

    /// What ImagePipe did with `entry`'s file, or nil when that is what the manifest expects.
    static func mismatch(_ entry: Entry) -> String? {
        let path = folder.appendingPathComponent(entry.file).path
        let outcome = Result { try Image.load(path: path, options: options) }
        switch (entry.class, outcome) {
        case ("right", .success(let ours)):
            guard let picture = entry.picture, let tolerance = entry.tolerance else { return "no reference picture in the manifest" }
            guard let reference = try? Image.load(path: folder.appendingPathComponent(picture).path) else { return "its reference \(picture) cannot be read" }
            guard let (largest, psnr) = difference(ours, reference) else { return "\(ours.size), \(entry.reference) \(reference.size)" }
            if largest > tolerance { return "\(largest) levels from \(entry.reference) (tolerance \(tolerance))" }
            if let floor = entry.psnr, psnr < floor { return "\(String(format: "%.1f", psnr)) dB from \(entry.reference) (floor \(floor) dB)" }
            return nil
        case ("right", .failure(let error)):
            return "refused: \(error)"
        case ("refused", .success(let ours)):
            return "decoded (\(ours.size)), expected refused"
        case ("refused", .failure(let error)):
            guard let error = error as? ImageError else { return "refused without an ImageError: \(error)" }
            return error.kind == .unsupported ? "unsupported, expected refused: \(error)" : nil
        case ("unsupported", .success(let ours)):
            return "decoded (\(ours.size)), expected unsupported"
        case ("unsupported", .failure(let error)):
            guard let error = error as? ImageError, error.kind == .unsupported else { return "expected unsupported: \(error)" }
            return nil
        default:
            return "unknown class \(entry.class)"
        }
    }

    @Test func everyFileIsInItsClass() throws {
        let entries = try Self.manifest().files
        #expect(entries.count > 400)
        let mismatches = entries.compactMap { entry in Self.mismatch(entry).map { "\(entry.file) [\(entry.class), \(entry.reference)]: \($0)" } }
        #expect(mismatches.isEmpty, "\(mismatches.count) of \(entries.count) files not in their class:\n\(mismatches.joined(separator: "\n"))")
    }

    /// Every picture in the folder has its entry, and every entry's file and reference are there.
    @Test func theManifestCoversTheFolder() throws {
        let entries = try Self.manifest().files
        let listed = Set(entries.map(\.file))
        let extensions: Set = ["png", "bmp", "gif", "ico", "cur", "tif", "tiff", "jpg", "webp", "avif"]
        let enumerator = try #require(FileManager.default.enumerator(atPath: Self.folder.path))
        var present = Set<String>()
        while let file = enumerator.nextObject() as? String {
            // references/ and bmpsuite's html/ hold reference pictures, not files under test.
            if !file.hasPrefix("references/"), !file.contains("/html/"), extensions.contains(URL(fileURLWithPath: file).pathExtension.lowercased()) { present.insert(file) }
        }
        #expect(present == listed, "not listed: \(present.subtracting(listed).sorted()); listed but missing: \(listed.subtracting(present).sorted())")
        let missing = entries.filter { ($0.class == "right") != ($0.picture.map { FileManager.default.fileExists(atPath: Self.folder.appendingPathComponent($0).path) } ?? false) }
        #expect(missing.isEmpty, "a right file without its reference, or a reference for another class: \(missing.map(\.file))")
    }
}
