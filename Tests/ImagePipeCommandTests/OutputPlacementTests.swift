import Foundation
import Testing
import ImagePipe
import TestSupport

/// Where outputs go when the command line says little: the format's extension, a batch's need
/// for a folder, `-o DIR/`, pictures that cannot be written in their own format, and standard
/// output holding one picture.
@Suite struct OutputPlacementTests {
    /// `a.png`, `c.jpg` and, beside them, a GIF (which gdk-pixbuf reads but cannot write).
    private func photos() throws -> TemporaryDirectory {
        let directory = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: directory.file("photos"), withIntermediateDirectories: true)
        _ = try directory.write(Synthetic.gradient(40, 30).encoded(as: .png), to: "photos/a.png")
        _ = try directory.write(Synthetic.gradient(50, 50).encoded(as: .jpeg), to: "photos/c.jpg")
        return directory
    }

    /// A 2x2 GIF (red and blue checks; gdk-pixbuf has no GIF saver, so its bytes are given).
    static let gif: [UInt8] = [
        0x47, 0x49, 0x46, 0x38, 0x37, 0x61, 0x02, 0x00, 0x02, 0x00, 0x81, 0x00, 0x00, 0xFF, 0x00, 0x00, 0x00, 0x00,
        0xFF, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x2C, 0x00, 0x00, 0x00, 0x00, 0x02, 0x00, 0x02, 0x00, 0x00, 0x08,
        0x07, 0x00, 0x01, 0x04, 0x08, 0x00, 0x20, 0x20, 0x00, 0x3B,
    ]

    private func magic(_ path: String) -> String {
        guard let data = FileManager.default.contents(atPath: path) else { return "missing" }
        let bytes = [UInt8](data)
        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]) { return "png" }
        if bytes.starts(with: [0xFF, 0xD8, 0xFF]) { return "jpeg" }
        if bytes.count > 12, bytes[8..<12].elementsEqual("WEBP".utf8) { return "webp" }
        return "other"
    }

    @Test func aBatchWithFormatNamesItsOutputsByThatFormat() throws {
        let directory = try photos()
        let result = try CommandRunner.run(["run", "-e", "fit 20x20", "photos", "--out-dir", "o", "--format", "webp", "-q"], in: directory.path)
        #expect(result.status == 0, "\(result.standardError)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.file("o")).sorted() == ["a.webp", "c.webp"])
        #expect(magic(directory.file("o/c.webp")) == "webp")
        // save format= names them the same way.
        let jpeg = try CommandRunner.run(["run", "-e", "fit 20x20 | save format=jpeg", "photos", "--out-dir", "j", "-q"], in: directory.path)
        #expect(jpeg.status == 0, "\(jpeg.standardError)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.file("j")).sorted() == ["a.jpg", "c.jpg"])
        #expect(magic(directory.file("j/a.jpg")) == "jpeg")
    }

    @Test func anExtensionThatNamesAnotherFormatIsAnError() throws {
        let directory = try photos()
        let result = try CommandRunner.run(["run", "-e", "fit 20x20", "photos/a.png", "-o", "x.png", "--format", "jpeg"], in: directory.path)
        #expect(result.status == 2)
        #expect(result.standardError == "imagepipe: save: 'x.png' is named as png, but the run's output format says jpeg; make the extension and the format agree, or give only one (--format)\n")
        #expect(!FileManager.default.fileExists(atPath: directory.file("x.png")))
        let stage = try CommandRunner.run(["run", "-e", "save x.webp format=png", "photos/a.png"], in: directory.path)
        #expect(stage.status == 2)
        #expect(stage.standardError.contains("'x.webp' is named as webp, but save's format= says png"), "\(stage.standardError)")
        // Agreeing names, and names of no known format, are fine.
        #expect(try CommandRunner.run(["run", "-e", "", "photos/a.png", "-o", "x.jpeg", "--format", "jpeg"], in: directory.path).status == 0)
        #expect(try CommandRunner.run(["run", "-e", "", "photos/a.png", "-o", "x.data", "--format", "png"], in: directory.path).status == 0)
        #expect(magic(directory.file("x.data")) == "png")
    }

    @Test func aBatchNeedsAFolderOrATemplate() throws {
        let directory = try photos()
        let unrelated = Array("my own a.png, not a picture".utf8)
        _ = try directory.write(unrelated, to: "a.png")
        let result = try CommandRunner.run(["run", "-e", "fit 20x20", "photos/a.png", "photos/c.jpg"], in: directory.path)
        #expect(result.status == 2)
        #expect(result.standardError.hasPrefix("imagepipe: several inputs need somewhere to go, or the outputs would land in the current folder over files of the same names: give --out-dir DIR, or an output template"), "\(result.standardError)")
        #expect(FileManager.default.contents(atPath: directory.file("a.png")).map { [UInt8]($0) } == unrelated)
        #expect(!FileManager.default.fileExists(atPath: directory.file("c.jpg")))
        // A template alone is enough: the names are the user's choice.
        let templated = try CommandRunner.run(["run", "-e", "fit 20x20", "photos/a.png", "photos/c.jpg", "-o", "{stem}-small.png", "-q"], in: directory.path)
        #expect(templated.status == 0, "\(templated.standardError)")
        #expect(FileManager.default.fileExists(atPath: directory.file("c-small.png")))
    }

    @Test func aSecondNameThatDoesNotExistIsTakenForAnOutputAndPointedAtDashO() throws {
        let directory = try photos()
        let result = try CommandRunner.run(["run", "-e", "fit 20x20", "photos/a.png", "out.png"], in: directory.path)
        #expect(result.status == 2)
        #expect(result.standardError == "imagepipe: 'out.png' does not exist, and every name after the pipeline is an input; to write the result there, give -o out.png\n")
        #expect(try directory.contents() == ["photos"], "nothing written")
    }

    @Test func aTrailingSlashOrAnOutDirAloneMeansIntoThatFolder() throws {
        let directory = try photos()
        let one = try CommandRunner.run(["run", "-e", "fit 20x20", "photos/c.jpg", "-o", "thumbs/"], in: directory.path)
        #expect(one.status == 0, "\(one.standardError)")
        #expect(magic(directory.file("thumbs/c.jpg")) == "jpeg")
        let many = try CommandRunner.run(["run", "-e", "fit 20x20", "photos", "-o", "many/", "-q"], in: directory.path)
        #expect(many.status == 0, "\(many.standardError)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.file("many")).sorted() == ["a.png", "c.jpg"])
        let outDir = try CommandRunner.run(["run", "-e", "fit 20x20", "photos/a.png", "--out-dir", "d"], in: directory.path)
        #expect(outDir.status == 0, "\(outDir.standardError)")
        #expect(try Image.load(path: directory.file("d/a.png")).size == Size(20, 15))
        // -o DIR/ inside --out-dir: a folder within it.
        let nested = try CommandRunner.run(["run", "-e", "fit 20x20", "photos/a.png", "--out-dir", "e", "-o", "small/", "--format", "jpeg"], in: directory.path)
        #expect(nested.status == 0, "\(nested.standardError)")
        #expect(magic(directory.file("e/small/a.jpg")) == "jpeg")
    }

    /// `-o NAME` naming a folder that exists means into it, as cp and mv take it; a name that is
    /// neither a folder nor has an extension says how to name a folder.
    @Test func anExistingFolderWithoutTheSlashIsWrittenInto() throws {
        let directory = try photos()
        try FileManager.default.createDirectory(atPath: directory.file("thumbs"), withIntermediateDirectories: true)
        let one = try CommandRunner.run(["run", "-e", "fit 20x20", "photos/c.jpg", "-o", "thumbs"], in: directory.path)
        #expect(one.status == 0, "\(one.standardError)")
        #expect(magic(directory.file("thumbs/c.jpg")) == "jpeg")
        let many = try CommandRunner.run(["run", "-e", "fit 20x20", "photos", "-o", "thumbs", "-q"], in: directory.path)
        #expect(many.status == 0, "\(many.standardError)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.file("thumbs")).sorted() == ["a.png", "c.jpg"])
        let missing = try CommandRunner.run(["run", "-e", "fit 20x20", "photos/c.jpg", "-o", "nothing"], in: directory.path)
        #expect(missing.status == 2)
        #expect(missing.standardError.contains("cannot tell the format of 'nothing' without an extension (for a folder, write 'nothing/')"), "\(missing.standardError)")
    }

    /// A 2x2 TGA (read only with --allow-format tga; no saver writes .tga).
    static let tga: [UInt8] = [0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 2, 0, 24, 0x20] + [0, 0, 255, 255, 0, 0, 0, 255, 0, 255, 255, 255]

    /// `-o '{stem}.{ext}'` keeps each input's extension; one that cannot be written fails alone
    /// (exit 1, its own message) and the rest of the batch is written.
    @Test func anUnwritableExtensionInATemplateFailsThatInputAlone() throws {
        let directory = try photos()
        _ = try directory.write(Self.tga, to: "photos/b.tga")
        let result = try CommandRunner.run(["run", "--allow-format", "tga", "-e", "fit 20x20", "photos", "-o", "o/{stem}.{ext}"], in: directory.path)
        #expect(result.status == 1, "\(result.standardError)")
        #expect(result.standardError.contains("photos/b.tga: save: cannot tell the format of './o/b.tga' from its extension (no writable format is .tga)"), "\(result.standardError)")
        #expect(result.standardError.contains("3 files: 2 done, 1 failed"), "\(result.standardError)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.file("o")).sorted() == ["a.png", "c.jpg"])
        // When no input can be named, the template itself is wrong: a usage error, nothing run.
        let none = try CommandRunner.run(["run", "-e", "fit 20x20", "photos", "-o", "p/{stem}.tga"], in: directory.path)
        #expect(none.status == 2, "\(none.standardError)")
        #expect(!FileManager.default.fileExists(atPath: directory.file("p")))
    }

    @Test func aPictureWhoseFormatCannotBeWrittenComesOutAsPNG() throws {
        let directory = try photos()
        _ = try directory.write(Self.gif, to: "photos/b.gif")
        #expect(try Image.load(path: directory.file("photos/b.gif")).size == Size(2, 2), "the fixture is a GIF gdk-pixbuf reads")
        let result = try CommandRunner.run(["run", "-e", "", "photos", "--out-dir", "o", "-q"], in: directory.path)
        #expect(result.status == 0, "\(result.standardError)")
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.file("o")).sorted()
        let gifName = ImageFormat(name: "gif").map { $0.isWritable } == true ? "b.gif" : "b.png" // once GIF can be written, it keeps its name
        #expect(names == ["a.png", gifName, "c.jpg"].sorted())
        #expect(try Image.load(path: directory.file("o/" + gifName)).size == Size(2, 2))
    }

    @Test func standardOutputHoldsOnePicture() throws {
        let directory = try photos()
        let json = try CommandRunner.run(["run", "-e", "fit 20x20", "photos/a.png", "-o", "-", "--format", "png", "--json"], in: directory.path)
        #expect(json.status == 2)
        #expect(json.standardError == "imagepipe: --json cannot go with a picture on standard output (-): both would be written there; drop --json, or write to a file\n")
        #expect(json.outputBytes.isEmpty)
        let batch = try CommandRunner.run(["run", "-e", "fit 20x20", "photos", "-o", "-", "--format", "png", "--jobs", "2"], in: directory.path)
        #expect(batch.status == 2)
        #expect(batch.standardError == "imagepipe: a batch cannot write to standard output (-): the pictures would run together: give --out-dir DIR, or an output template such as -o '{stem}-small.png'\n")
        #expect(batch.outputBytes.isEmpty)
        let twice = try CommandRunner.run(["run", "-e", "tee - format=png | save - format=png", "photos/a.png"], in: directory.path)
        #expect(twice.status == 2)
        #expect(twice.standardError == "imagepipe: only one output can go to standard output (-)\n")
        #expect(twice.outputBytes.isEmpty)
    }

    @Test func standardInputIsNamedStdin() throws {
        let directory = try photos()
        let picture = try Synthetic.gradient(30, 20).encoded(as: .png)
        let result = try CommandRunner.run(["run", "-e", "fit 10x10", "-", "--out-dir", "o"], in: directory.path, input: picture)
        #expect(result.status == 0, "\(result.standardError)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.file("o")) == ["stdin.png"])
        let templated = try CommandRunner.run(["run", "-e", "fit 10x10", "-", "-o", "{stem}-avatar.png"], in: directory.path, input: picture)
        #expect(templated.status == 0, "\(templated.standardError)")
        #expect(FileManager.default.fileExists(atPath: directory.file("stdin-avatar.png")))
    }
}
