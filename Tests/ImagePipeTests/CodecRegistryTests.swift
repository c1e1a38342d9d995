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
        for format in ImageFormat.allCases {
            #expect(Codecs.registered.filter { $0.format == format }.count == 1, "\(format)")
        }
    }

    /// Each codec declares what it implements, and implements what it declares: a writer, rows
    /// written in order, rows handed out in order, frames both ways. A codec lacking a piece
    /// leaves it to the protocol's defaults, which give none.
    @Test(arguments: Codecs.registered.map(\.format))
    func capabilitiesAreWhatTheCodecImplements(format: ImageFormat) throws {
        let codec = Codecs.of(format), can = codec.capabilities
        let directory = try TemporaryDirectory()
        let picture = try Synthetic.gradient(64, 48)
        let written = format.isWritable ? format : nil
        #expect((can.writer != nil) == ImageFormat.encodable.contains(format), "\(format): a writer is an output format")
        #expect(codec.takesRows(options: SaveOptions()) == can.writesRows, "\(format): rows written in order")
        guard let written else {
            #expect(throws: ImageError.self) { try codec.encode(picture, options: SaveOptions(), metadata: OutputMetadata(), cancellation: nil) }
            #expect(codec.animationEncoder(options: SaveOptions(), plays: nil) == nil, "\(format): frames written")
            return
        }
        let path = directory.file("picture.\(written.fileExtension)")
        try picture.save(to: path, format: written)
        let header = try ImageHeader.read(path: path, options: LoadOptions(allowedFormats: [format]))
        #expect(header.format == format && header.storedSize == Size(64, 48))
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

    /// What a format says of its files is what its encoder writes: alpha kept where it says it
    /// holds alpha (else flattened), and exactly the metadata it says it embeds: EXIF and XMP as
    /// ExifTool reads the file back (not ImagePipe's own readers, which could miss a block the
    /// same way), the profile as `info` finds it.
    @Test(arguments: ImageFormat.encodable)
    func declaredFactsAreWhatTheEncoderWrites(format: ImageFormat) throws {
        try #require(format.isWritable, "no \(format) saver installed")
        let directory = try TemporaryDirectory()
        let everyFormat = LoadOptions(allowedFormats: Set(ImageFormat.allCases))
        // Alpha: the left half transparent, the right half opaque (GIF's one level holds it).
        let halves = try Synthetic.image(16, 16, alpha: true) { x, _ in Color(red: 200, green: 100, blue: 50, alpha: x < 8 ? 0 : 255) }
        let decoded = try Image.decode(halves.encoded(as: format, options: SaveOptions(quality: 95)), options: everyFormat)
        if format.supportsAlpha {
            #expect(decoded.hasAlpha && decoded.pixel(x: 2, y: 8).alpha == 0 && decoded.pixel(x: 13, y: 8).alpha == 255, "\(format): alpha kept")
        } else {
            #expect(!decoded.hasAlpha, "\(format): flattened")
        }
        // Metadata: a Display P3 profile (the pixels in it), an EXIF block naming a camera, and an
        // XMP packet, all kept.
        let p3 = ColorReference.displayP3()
        let xmp = #"<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">"#
            + #"<rdf:Description rdf:about="" xmlns:xmp="http://ns.adobe.com/xap/1.0/" xmp:CreatorTool="ImagePipe test"/></rdf:RDF></x:xmpmeta>"#
        let picture = try Synthetic.gradient(16, 16).withMetadata(ImageMetadata(iccProfile: p3, sourceProfile: p3, exif: Self.exifNamingACamera, xmp: Array(xmp.utf8)))
        let path = directory.file("picture.\(format.fileExtension)")
        try picture.save(to: path, options: SaveOptions(quality: 95, keep: .all))
        let tags = try ExifTool.tags(path)
        let can = Codecs.of(format).capabilities
        #expect((tags["EXIF:Make"]?.stringValue == "ImagePipeCam") == can.writtenMetadata.contains("exif"), "\(format): EXIF \(tags.keys.sorted())")
        #expect((tags["XMP:CreatorTool"]?.stringValue == "ImagePipe test") == can.writtenMetadata.contains("xmp"), "\(format): XMP \(tags.keys.sorted())")
        // The profile as ImagePipe's reader finds it: libjxl codes P3 by its primaries, with no ICC
        // block for ExifTool to see, and its decoder makes the profile of them.
        let info = try ImageInfo.read(path: path, options: everyFormat)
        #expect((info.profileName != nil) == format.embedsProfile, "\(format): the profile")
        #expect(format.embedsMetadata == (can.writtenMetadata.contains("exif") && can.writtenMetadata.contains("xmp")))
    }

    /// An EXIF block (TIFF-structured, little-endian) holding one tag, Make = "ImagePipeCam".
    static let exifNamingACamera: [UInt8] = [0x49, 0x49, 0x2A, 0x00, 0x08, 0x00, 0x00, 0x00, 0x01, 0x00,
                                             0x0F, 0x01, 0x02, 0x00, 0x0D, 0x00, 0x00, 0x00, 0x1A, 0x00, 0x00, 0x00,
                                             0x00, 0x00, 0x00, 0x00] + Array("ImagePipeCam\0".utf8)

    /// Every name a format declares names it, in any case; an output file's name asks for the
    /// formats ImagePipe encodes and no other; the usual extension comes first.
    @Test func namesAreTheDeclaredOnes() {
        for format in ImageFormat.allCases {
            #expect(ImageFormat(name: format.rawValue.uppercased()) == format)
            #expect(format.fileExtensions.first == format.fileExtension && !format.fileExtensions.isEmpty, "\(format)")
            for name in format.fileExtensions {
                #expect(ImageFormat(name: name.uppercased()) == format, "\(name)")
                #expect(ImageFormat(fileName: "dir.x/picture.\(name)") == (format.hasEncoder ? format : nil), "\(name)")
            }
        }
        #expect(Set(ImageFormat.encodable) == Set(ImageFormat.allCases.filter { Codecs.of($0).capabilities.writer != nil }))
        #expect(ImageFormat(name: "psd") == nil && ImageFormat(fileName: "picture") == nil && ImageFormat(outputName: "heic") == nil)
        #expect(ImageFormat(outputName: "JPG") == .jpeg && ImageFormat(name: "cur") == .ico && ImageFormat(name: "pgm") == .pnm)
    }

    /// The table in docs/formats.md, row by row, as the registry says it.
    @Test func theManualShowsTheRegistry() throws {
        let manual = try String(contentsOf: Self.root.appendingPathComponent("docs/formats.md"), encoding: .utf8)
        func word(_ value: Bool) -> String { value ? "yes" : "no" }
        for codec in Codecs.registered {
            let can = codec.capabilities
            let row = "| \(codec.format.displayName) | \(can.reader) | \(can.writer ?? "—") | \(word(can.reducedDecode)) | "
                + "\(word(can.rowsInOrder)) | \(word(can.writesRows)) | \(word(can.regions)) | \(word(can.wholeFile)) | \(word(can.frames)) | "
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
        let codec = Codecs.of(header.format).capabilities
        let decoded = try Image.load(path: path, options: LoadOptions(atLeast: Size(16, 12)), header: header)
        #expect((decoded.size != Size(64, 48)) == codec.reducedDecode, "\(format): \(decoded.size)")
    }
}
