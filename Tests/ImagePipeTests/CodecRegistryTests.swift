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

    /// Each codec declares what it implements, and implements what it declares: a writer, rows
    /// written in order, rows handed out in order, frames both ways. A codec lacking a piece
    /// leaves it to the protocol's defaults, which give none.
    @Test(arguments: Codecs.registered.map(\.format))
    func capabilitiesAreWhatTheCodecImplements(format: SourceFormat) throws {
        let codec = Codecs.of(format), can = codec.capabilities
        let directory = try TemporaryDirectory()
        let picture = try Synthetic.gradient(64, 48)
        let written = ImageFormat(rawValue: format.rawValue).flatMap { $0.isAvailable ? $0 : nil }
        #expect((can.writer != nil) == (ImageFormat(rawValue: format.rawValue) != nil), "\(format): a writer is an output format")
        #expect(codec.takesRows(options: SaveOptions()) == can.writesRows, "\(format): rows written in order")
        guard let written else {
            #expect(throws: ImageError.self) { try codec.encode(picture, options: SaveOptions(), metadata: OutputMetadata(), cancellation: nil) }
            #expect(codec.animationEncoder(options: SaveOptions(), plays: nil) == nil, "\(format): frames written")
            return
        }
        let path = directory.file("picture.\(written.fileExtension)")
        try picture.save(to: path, format: written)
        let header = try ImageHeader.read(path: path, options: LoadOptions(allowedFormats: [format]))
        #expect(header.format == format.rawValue && header.storedSize == Size(64, 48))
        let rows = try codec.rowSource(path: path, header: header, options: LoadOptions(allowedFormats: [format]))
        #expect((rows != nil) == can.rowsInOrder, "\(format): rows handed out in order")
        let encoder = codec.animationEncoder(options: SaveOptions(), plays: nil)
        #expect((encoder != nil) == can.frames, "\(format): frames written")
        let stillBytes = try picture.encoded(as: written)
        guard let encoder else {
            let frames = try codec.frameDecoder(for: stillBytes, canvas: nil, options: LoadOptions(), failOnDamage: true, path: nil)
            #expect(frames == nil, "\(format): frames read")
            return
        }
        try encoder.add(picture, delay: 100)
        try encoder.add(Synthetic.image(64, 48) { x, y in Color(red: UInt8(y * 5), green: UInt8(x * 3), blue: 9) }, delay: 200)
        let animation = try encoder.finish().joined
        let frames = try #require(try codec.frameDecoder(for: animation, canvas: nil, options: LoadOptions(), failOnDamage: true, path: nil))
        var count = 0
        while try frames.next() != nil { count += 1 }
        #expect(count == 2, "\(format): frames read")
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
    /// size; the others decode whole. (A TIFF decodes reduced when it holds a pyramid, which
    /// ImagePipe does not write: TIFFPyramidTests.)
    @Test(arguments: [ImageFormat.jpeg, .png, .webp, .gif, .bmp, .avif])
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
