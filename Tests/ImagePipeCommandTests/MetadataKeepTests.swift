import Foundation
import ImagePipe
import Testing
import TestSupport

/// `save keep=none|exif|icc|xmp|all` writes exactly what it names, in every format that carries
/// metadata, as ExifTool reads the outputs back (not ImagePipe's own reader, which wrote them).
@Suite struct MetadataKeepTests {
    static let xmp = """
        <?xpacket begin="" id="W5M0MpCehiHzreSzNTczkc9d"?><x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF \
        xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description rdf:about="" \
        xmlns:xmp="http://ns.adobe.com/xap/1.0/" xmp:CreatorTool="ImagePipe test"/></rdf:RDF></x:xmpmeta><?xpacket end="w"?>
        """

    /// A camera JPEG, 40x20 stored sideways: Adobe RGB pixels with their profile and an XMP
    /// packet (written by ImagePipe), then EXIF written by ExifTool: make, model, date, a GPS
    /// position and orientation 6.
    static func cameraJPEG(in directory: TemporaryDirectory) throws -> (path: String, profile: [UInt8]) {
        let adobe = try [UInt8](Data(contentsOf: URL(fileURLWithPath: ColorReference.adobeRGB)))
        let picture = try Synthetic.image(40, 20) { _, _ in Color(red: 200, green: 100, blue: 50) }
            .withMetadata(ImageMetadata(iccProfile: adobe, xmp: Array(xmp.utf8)))
        let path = try directory.write(picture.encoded(as: .jpeg, options: SaveOptions(quality: 95, keep: .xmp)), to: "camera.jpg")
        try ExifTool.write(path, ["-Make=ImagePipeCam", "-Model=T1", "-DateTimeOriginal=2024:05:06 07:08:09",
                                  "-GPSLatitude=48.1", "-GPSLatitudeRef=N", "-Orientation#=6"])
        return (path, adobe)
    }

    static func groups(_ tags: [String: JSONValue], _ group: String) -> [String] {
        tags.keys.filter { $0.hasPrefix(group + ":") }.sorted()
    }

    @Test(arguments: ["jpg", "png", "webp", "avif"])
    func keepWritesExactlyWhatItNames(format: String) throws {
        let directory = try TemporaryDirectory()
        let (input, adobe) = try Self.cameraJPEG(in: directory)
        // The input as ExifTool sees it, so that a reader that missed a block cannot pass the test.
        let source = try ExifTool.tags(input)
        #expect(source["EXIF:Make"]?.stringValue == "ImagePipeCam" && source["EXIF:Orientation"]?.numberValue == 6)
        let sourceProfile = try ExifTool.profile(input)
        #expect(source["XMP:CreatorTool"]?.stringValue == "ImagePipe test" && sourceProfile == adobe)
        let stored = try Image.load(path: input, options: LoadOptions(color: .keep)).pixel(x: 5, y: 5)
        let converted = try Image.load(path: input).pixel(x: 5, y: 5)
        #expect(!Synthetic.close(stored, converted, tolerance: 5), "Adobe RGB's orange is not sRGB's")
        for keep in MetadataKeep.allCases {
            let output = directory.file("out-\(keep).\(format)")
            let result = try CommandRunner.run(["run", "-e", "save keep=\(keep.rawValue) quality=95", input, "-o", output])
            try #require(result.status == 0, "keep=\(keep): \(result.standardError)")
            let tags = try ExifTool.tags(output)
            let what = "\(format) keep=\(keep)"
            // A list keeps each it names: keep=exif,icc is exif and icc; -gps leaves the position out.
            let words = keep.rawValue.split(separator: ",")
            func keeps(_ kind: String) -> Bool { words.contains("all") || words.contains(Substring(kind)) }
            if keeps("exif") {
                #expect(tags["EXIF:Make"]?.stringValue == "ImagePipeCam" && tags["EXIF:Model"]?.stringValue == "T1", "\(what)")
                #expect(tags["EXIF:DateTimeOriginal"]?.stringValue == "2024:05:06 07:08:09", "\(what)")
                if words.contains("-gps") {
                    #expect(Self.groups(tags, "EXIF").allSatisfy { !$0.hasPrefix("EXIF:GPS") }, "\(what): \(Self.groups(tags, "EXIF"))")
                } else {
                    #expect(tags["EXIF:GPSLatitude"]?.numberValue == 48.1, "\(what)")
                }
                #expect(tags["EXIF:Orientation"]?.numberValue == 1, "\(what): the pixels were turned, so orientation 1")
            } else {
                #expect(Self.groups(tags, "EXIF").isEmpty, "\(what): \(Self.groups(tags, "EXIF"))")
            }
            if keeps("xmp") {
                #expect(tags["XMP:CreatorTool"]?.stringValue == "ImagePipe test", "\(what)")
            } else {
                #expect(Self.groups(tags, "XMP").isEmpty, "\(what): \(Self.groups(tags, "XMP"))")
            }
            let decoded = try Image.load(path: output, options: LoadOptions(color: .keep))
            #expect(decoded.size == Size(20, 40), "\(what): turned upright")
            if keeps("icc") {
                // The profile, byte for byte, and the pixels still in it.
                #expect(try ExifTool.profile(output) == adobe, "\(what)")
                #expect(Synthetic.close(decoded.pixel(x: 5, y: 5), stored, tolerance: 2), "\(what): \(decoded.pixel(x: 5, y: 5)) vs \(stored)")
            } else {
                // No profile: what the colors need is sRGB pixels, which untagged files are taken to be.
                #expect(Self.groups(tags, "ICC_Profile").isEmpty, "\(what): \(Self.groups(tags, "ICC_Profile"))")
                #expect(Synthetic.close(decoded.pixel(x: 5, y: 5), converted, tolerance: 2), "\(what): \(decoded.pixel(x: 5, y: 5)) vs \(converted)")
            }
        }
    }

    @Test func anOrientationThatWasNotAppliedIsKept() throws {
        let directory = try TemporaryDirectory()
        // A PNG's eXIf orientation turns the pixels as a JPEG's does, and the tag is then written
        // as 1; a picture left as stored keeps 6 for viewers that apply it.
        let png = try directory.write(Synthetic.gradient(40, 20).encoded(as: .png), to: "sideways.png")
        try ExifTool.write(png, ["-Orientation#=6", "-Make=ImagePipeCam"])
        #expect(try ExifTool.tags(png)["EXIF:Orientation"]?.numberValue == 6)
        let (camera, _) = try Self.cameraJPEG(in: directory)
        for (input, pipeline, orientation, size) in [(png, "save keep=exif", 1.0, Size(20, 40)),
                                                     (png, "load auto-orient=false | save keep=exif", 6, Size(40, 20)),
                                                     (camera, "load auto-orient=false | save keep=exif", 6, Size(40, 20)),
                                                     (camera, "save keep=exif", 1, Size(20, 40))] {
            let output = directory.file("out.jpg")
            let result = try CommandRunner.run(["run", "-e", pipeline, input, "-o", output, "--overwrite"])
            try #require(result.status == 0, "\(pipeline): \(result.standardError)")
            let tags = try ExifTool.tags(output)
            #expect(tags["EXIF:Orientation"]?.numberValue == orientation && tags["EXIF:Make"]?.stringValue == "ImagePipeCam",
                    "\(input) \(pipeline)")
            #expect(try Image.load(path: output, options: LoadOptions(applyOrientation: false)).size == size, "\(input) \(pipeline)")
        }
    }
}
