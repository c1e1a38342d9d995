import Foundation
@testable import ImagePipe
@testable import ImagePipeCore
import Testing
import TestSupport

/// The codec registry (`Codecs.registered`) is what loading and planning ask of a format: it covers
/// every format, says what each decoder does, and docs/formats.md shows the same table.
@Suite struct CodecRegistryTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test func everyFormatHasOneCodec() {
        for format in SourceFormat.allCases {
            #expect(Codecs.registered.filter { $0.format == format }.count == 1, "\(format)")
        }
    }

    /// The table in docs/formats.md, row by row, as the registry says it.
    @Test func theManualShowsTheRegistry() throws {
        let manual = try String(contentsOf: Self.root.appendingPathComponent("docs/formats.md"), encoding: .utf8)
        func word(_ value: Bool) -> String { value ? "yes" : "no" }
        for codec in Codecs.registered {
            let can = codec.capabilities
            let row = "| \(codec.format.displayName) | \(can.reader) | \(can.writer ?? "—") | \(word(can.reducedDecode)) | "
                + "\(word(can.rowsInOrder)) | \(word(can.writesRows)) | \(word(can.tiles)) | \(word(can.wholeFile)) | \(word(can.frames)) | "
                + "\(can.metadata.isEmpty ? "—" : can.metadata.joined(separator: ", ")) |"
            #expect(manual.contains(row + "\n"), "docs/formats.md lacks the row:\n\(row)")
        }
    }

    /// A format said to decode reduced decodes a plan that only shrinks at a fraction of its
    /// size; the others decode whole.
    @Test(arguments: [ImageFormat.jpeg, .png, .webp, .gif, .tiff, .bmp, .avif])
    func reducedDecodingIsWhatTheRegistrySays(format: ImageFormat) throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("picture.\(format.rawValue)")
        try Synthetic.gradient(64, 48).save(to: path)
        let header = try ImageHeader.read(path: path)
        let codec = Codecs.of(try #require(SourceFormat(rawValue: header.format))).capabilities
        let decoded = try Image.load(path: path, options: LoadOptions(atLeast: Size(16, 12)), header: header)
        #expect((decoded.size != Size(64, 48)) == codec.reducedDecode, "\(format): \(decoded.size)")
    }
}
