import Foundation
import ImagePipe
import Testing
import TestSupport

/// `imagepipe info` on every readable format, in text and JSON.
@Suite struct InfoCommandTests {
    @Test func infoReadsEveryFormat() throws {
        let directory = try TemporaryDirectory()
        let picture = try Synthetic.gradient(30, 20)
        var files: [(String, String)] = []
        for format in ImageFormat.allCases {
            let name = "picture.\(format.rawValue)"
            _ = try directory.write(picture.encoded(as: format), to: name)
            files.append((name, format == .ico ? "ico" : format.rawValue))
        }
        try HEICWriter.write(picture, to: directory.file("picture.heic"))
        files.append(("picture.heic", "heif"))
        for (name, format) in files {
            let result = try CommandRunner.run(["info", "--json", "--allow-format", "ico", directory.file(name)])
            #expect(result.status == 0, "\(name): \(result.standardError)")
            let json = try #require(JSONValue.parse(result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)))
            #expect(json["format"]?.stringValue == format, "\(name): \(result.standardOutput)")
            #expect(json["width"]?.numberValue == 30 && json["height"]?.numberValue == 20, "\(name)")
        }
    }

    @Test func infoShowsProfileOrientationAndExif() throws {
        let directory = try TemporaryDirectory()
        let p3 = ColorReference.displayP3()
        let jpeg = try Synthetic.gradient(40, 20).withMetadata(ImageMetadata(iccProfile: p3)).encoded(as: .jpeg)
        let path = try directory.write(Synthetic.withExifOrientation(jpeg, orientation: 6), to: "phone.jpg")
        let text = try CommandRunner.run(["info", path])
        #expect(text.status == 0)
        #expect(text.standardOutput.contains("JPEG 40x20"))
        #expect(text.standardOutput.contains("orientation: 6 (shown as 20x40)"))
        #expect(text.standardOutput.contains("color profile: Display P3 (rgb)"))
        #expect(text.standardOutput.contains("EXIF: date none, camera none, GPS no"))
        let json = try #require(JSONValue.parse(CommandRunner.run(["info", "--json", path]).standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)))
        #expect(json["profile"]?["name"]?.stringValue == "Display P3")
        #expect(json["orientation"]?.numberValue == 6 && json["shownWidth"]?.numberValue == 20)
        let missing = try CommandRunner.run(["info", directory.file("none.png")])
        #expect(missing.status == 1 && missing.standardError.contains("none.png"))
    }
}
