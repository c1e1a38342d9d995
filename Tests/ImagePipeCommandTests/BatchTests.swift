import Foundation
import Testing
import ImagePipe
import TestSupport

@Suite struct BatchTests {
    /// A directory with pictures `a.png`, `b.png`, `c.jpg` and `nested/deeper/d.png`.
    private func photos() throws -> TemporaryDirectory {
        let directory = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: directory.file("photos/nested/deeper"), withIntermediateDirectories: true)
        _ = try directory.write(Synthetic.gradient(40, 30).encoded(as: .png), to: "photos/a.png")
        _ = try directory.write(Synthetic.gradient(30, 40).encoded(as: .png), to: "photos/b.png")
        _ = try directory.write(Synthetic.gradient(50, 50).encoded(as: .jpeg), to: "photos/c.jpg")
        _ = try directory.write(Synthetic.gradient(20, 20).encoded(as: .png), to: "photos/nested/deeper/d.png")
        _ = try directory.write("not a picture", to: "photos/notes.txt")
        return directory
    }

    private func files(under path: String) -> [String] {
        (FileManager.default.enumerator(atPath: path)?.allObjects as? [String] ?? [])
            .filter { !$0.hasSuffix("/") && !(FileManager.default.fileExists(atPath: path + "/" + $0, isDirectory: nil) && isDirectory(path + "/" + $0)) }
            .sorted()
    }

    private func isDirectory(_ path: String) -> Bool {
        var flag: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &flag) && flag.boolValue
    }

    /// A directory is searched for every format ImagePipe's own codecs read, by their usual
    /// extensions, whatever gdk-pixbuf loaders are installed (none reads AVIF or HEIC here).
    @Test func aDirectoryYieldsEveryVettedFormat() throws {
        let directory = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: directory.file("in"), withIntermediateDirectories: true)
        let picture = try Synthetic.gradient(24, 16)
        var names: [String] = []
        for (format, extensions) in [(ImageFormat.jpeg, ["jpg", "jpeg"]), (.png, ["png"]), (.webp, ["webp"]), (.gif, ["gif"]),
                                     (.tiff, ["tif", "tiff"]), (.bmp, ["bmp"]), (.avif, ["avif", "HEIC"])] {
            for suffix in extensions {
                _ = try directory.write(picture.encoded(as: format), to: "in/\(format.rawValue)-\(suffix).\(suffix)")
                names.append("\(format.rawValue)-\(suffix).\(suffix).png")
            }
        }
        _ = try directory.write("not a picture", to: "in/notes.txt")
        let result = try CommandRunner.run(["run", "-e", "fit 8x8", "in", "--out-dir", "out", "-o", "{name}.png", "-q"], in: directory.path)
        #expect(result.status == 0, "\(result.standardError)")
        #expect(files(under: directory.file("out")) == names.sorted())
    }

    @Test func manyInputsWithATemplate() throws {
        let directory = try photos()
        let result = try CommandRunner.run(["run", "-e", "fit 20x20", "photos/a.png", "photos/b.png", "photos/c.jpg",
                                            "--out-dir", "out", "-o", "{stem}-small.png", "--jobs", "1"], in: directory.path)
        #expect(result.status == 0, "\(result.standardError)")
        #expect(files(under: directory.file("out")) == ["a-small.png", "b-small.png", "c-small.png"])
        // Not on a terminal: a line per file, then the summary.
        let lines = result.standardError.split(separator: "\n")
        #expect(lines.count == 4)
        #expect(lines[0] == "photos/a.png → out/a-small.png (40x30 → 20x15)")
        #expect(lines[3].hasPrefix("3 files: 3 done, 0 failed in "))
        #expect(try Image.load(path: directory.file("out/b-small.png")).size == Size(15, 20))
    }

    @Test func directoriesRecursivelyKeepTheirLayout() throws {
        let directory = try photos()
        let flat = try CommandRunner.run(["run", "-e", "fit 10x10", "photos", "--out-dir", "flat", "-q"], in: directory.path)
        #expect(flat.status == 0, "\(flat.standardError)")
        #expect(flat.standardError.isEmpty)
        #expect(files(under: directory.file("flat")) == ["a.png", "b.png", "c.jpg"])
        let deep = try CommandRunner.run(["run", "-e", "fit 10x10 | save {dir}/{index}-{name}", "photos", "-r", "--out-dir", "deep", "-q"], in: directory.path)
        #expect(deep.status == 0, "\(deep.standardError)")
        #expect(files(under: directory.file("deep")) == ["1-a.png", "2-b.png", "3-c.jpg", "nested/deeper/4-d.png"])
    }

    @Test func progressBarOnATerminal() throws {
        let directory = try photos()
        // `script` gives the command a terminal; the bar is redrawn in place on standard error.
        let command = "'\(CommandRunner.binary)' run -e 'fit 10x10' photos -r --out-dir out --jobs 1"
        let result = try CommandRunner.runProgram("/usr/bin/script", ["-qec", command, "/dev/null"], in: directory.path)
        #expect(result.status == 0)
        #expect(result.standardOutput.contains("[######------------------] 1/4  "))
        #expect(result.standardOutput.contains("[########################] 4/4  "))
        #expect(result.standardOutput.contains(" img/s  "))
        #expect(result.standardOutput.contains("\r\u{1B}[2K4 files: 4 done, 0 failed in "))
        #expect(!result.standardOutput.contains("photos/a.png →"), "no per-file lines on a terminal")
    }

    @Test func collisionsAreRefusedBeforeAnyWork() throws {
        let directory = try photos()
        _ = try directory.write(Synthetic.gradient(8, 8).encoded(as: .png), to: "photos/nested/a.png")
        let result = try CommandRunner.run(["run", "-e", "fit 10x10", "photos/a.png", "photos/nested/a.png", "--out-dir", "out", "-o", "{stem}.png"], in: directory.path)
        #expect(result.status == 2)
        #expect(result.standardError == "imagepipe: 'photos/a.png' and 'photos/nested/a.png' would both be written to 'out/a.png'; use {stem}, {dir} or {index} in the output name\n")
        #expect(!FileManager.default.fileExists(atPath: directory.file("out")))
    }

    @Test func outputsStayInsideTheOutputDirectory() throws {
        let directory = try photos()
        for template in ["../{stem}.png", "/tmp/{stem}.png", "x/../../{stem}.png"] {
            let result = try CommandRunner.run(["run", "-e", "", "photos/a.png", "photos/b.png", "--out-dir", "out", "-o", template], in: directory.path)
            #expect(result.status == 2, "\(template)")
            #expect(result.standardError.contains("is outside the output directory 'out'"), "\(template): \(result.standardError)")
        }
        // A link inside the output directory that leads out of it is refused too.
        try FileManager.default.createDirectory(atPath: directory.file("out"), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: directory.file("out/escape"), withDestinationPath: directory.path)
        let linked = try CommandRunner.run(["run", "-e", "", "photos/a.png", "photos/b.png", "--out-dir", "out", "-o", "escape/{stem}-x.png"], in: directory.path)
        #expect(linked.status == 1)
        #expect(linked.standardError.contains("outside the output directory 'out'"))
        #expect(!FileManager.default.fileExists(atPath: directory.file("a-x.png")))
    }

    @Test func inputsAreNeverOverwritten() throws {
        let directory = try photos()
        let result = try CommandRunner.run(["run", "-e", "fit 10x10", "a.png", "b.png", "--out-dir", "."], in: directory.file("photos"))
        #expect(result.status == 2)
        #expect(result.standardError == "imagepipe: the output './a.png' is the input file 'a.png'; give --overwrite to replace it\n")
        #expect(try Image.load(path: directory.file("photos/a.png")).size == Size(40, 30))
    }

    @Test func jobsDoNotChangeTheBytes() throws {
        let directory = try photos()
        let text = "circle-crop size=16 | save {stem}.png"
        let one = try CommandRunner.run(["run", "-e", text, "photos", "-r", "--out-dir", "one", "--jobs", "1", "-q"], in: directory.path)
        let two = try CommandRunner.run(["run", "-e", text, "photos", "-r", "--out-dir", "two", "--jobs", "2", "-q"], in: directory.path)
        #expect(one.status == 0 && two.status == 0)
        let names = files(under: directory.file("one"))
        #expect(names.count == 4 && names == files(under: directory.file("two")))
        for name in names {
            #expect(FileManager.default.contents(atPath: directory.file("one/" + name)) == FileManager.default.contents(atPath: directory.file("two/" + name)), "\(name)")
        }
    }

    @Test func aBadFileDoesNotStopTheOthers() throws {
        let directory = try photos()
        _ = try directory.write(Array("garbage".utf8), to: "photos/broken.png")
        let result = try CommandRunner.run(["run", "-e", "fit 10x10", "photos", "--out-dir", "out"], in: directory.path)
        #expect(result.status == 1)
        #expect(result.standardError.contains("imagepipe: photos/broken.png: unsupported format: not a picture format ImagePipe recognizes by its first bytes\n"))
        #expect(result.standardError.contains("4 files: 3 done, 1 failed in "))
        #expect(files(under: directory.file("out")) == ["a.png", "b.png", "c.jpg"])
    }

    @Test func jsonLinePerFile() throws {
        let directory = try photos()
        _ = try directory.write(Array("garbage".utf8), to: "photos/broken.png")
        let result = try CommandRunner.run(["run", "-e", "fit 10x10", "photos", "--out-dir", "out", "--json", "-q"], in: directory.path)
        #expect(result.status == 1)
        let objects = try result.standardOutput.split(separator: "\n").map {
            try #require(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        #expect(objects.count == 4)
        let a = try #require(objects.first { $0["input"] as? String == "photos/a.png" })
        #expect(a["outputs"] as? [String] == ["out/a.png"])
        #expect(a["inputSize"] as? [Int] == [40, 30] && a["outputSize"] as? [Int] == [10, 8])
        #expect(a["error"] is NSNull)
        #expect((a["seconds"] as? Double ?? -1) >= 0)
        let broken = try #require(objects.first { $0["input"] as? String == "photos/broken.png" })
        #expect((broken["error"] as? String)?.contains("unsupported format") == true)
    }

    @Test func teeWritesSeveralOutputsFromOneDecode() throws {
        let directory = try photos()
        let result = try CommandRunner.run(["run", "-e", "fit 20x20 | tee {stem}-preview.jpg | circle-crop size=8 | save {stem}-avatar.png",
                                            "photos/a.png", "photos/b.png", "--out-dir", "out", "-q"], in: directory.path)
        #expect(result.status == 0, "\(result.standardError)")
        #expect(files(under: directory.file("out")) == ["a-avatar.png", "a-preview.jpg", "b-avatar.png", "b-preview.jpg"])
        #expect(try Image.load(path: directory.file("out/a-preview.jpg")).size == Size(20, 15))
        #expect(try Image.load(path: directory.file("out/a-avatar.png")).size == Size(8, 8))
    }

    @Test func executablePipelineScripts() throws {
        let directory = try photos()
        let script = try directory.write("#!/usr/bin/env -S imagepipe run\n# A thumbnail script\nfit $SIZE\nsave {stem}-thumb.png\n", to: "thumb.pipe")
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: script)
        let binDirectory = URL(fileURLWithPath: CommandRunner.binary).deletingLastPathComponent().path
        let path = binDirectory + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
        let result = try CommandRunner.runProgram(script, ["photos/a.png", "photos/c.jpg", "--set", "SIZE=12x12", "--out-dir", "out", "-q"],
                                                  in: directory.path, environment: ["PATH": path])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(files(under: directory.file("out")) == ["a-thumb.png", "c-thumb.png"])
    }

    @Test func explainShowsThePlanWithoutDecoding() throws {
        let directory = try photos()
        // A JPEG cut off after its header still explains: only the header is read.
        let jpeg = try Synthetic.gradient(400, 300).encoded(as: .jpeg)
        _ = try directory.write(Array(jpeg.prefix(700)), to: "cut.jpg")
        let result = try CommandRunner.run(["explain", "-e", "fit 100x100 | tee p.jpg | circle-crop size=32", "cut.jpg", "-o", "out.png"], in: directory.path)
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput == """
            cut.jpg: jpeg 400x300
            0  load                 → 400x300         decoded at 1/2 as 200x150 (shrink-on-load: fit wants at least 200x150); scaling good: reduced decode with 2× headroom, lanczos3; streamed: 32 rows at a time go through the stages into the encoder while the decode goes on (decoded rows in a ring of about 87.9K)
            1  fit 100x100          400x300 → 100x75  scale ×0.25 (zmin 0.25 × zoom 1); resample stage: each strip at its own size from the input rows it needs, its rows about 110K
            2  tee p.jpg            100x75 → 100x75   writes p.jpg; writing stage: each strip handed on as it passes to another output's stages and encoder, on a thread of their own, its rows about 43.9K
            3  circle-crop size=32  100x75 → 32x32    circle center 50,37.5 radius 37.5 in image pixels, scale ×0.427; resample stage: each strip at its own size from the input rows it needs, its rows about 26.0K
            4  save                 32x32 → out.png
            memory: about 42.0M at the peak, rows of the streamed run (what --max-memory reserves)

            """)
        #expect(try directory.contents() == ["cut.jpg", "photos"])
    }

    @Test func stagesAsJSON() throws {
        let result = try CommandRunner.run(["stages", "--json"])
        let object = try #require(JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any])
        #expect(object["schemaVersion"] as? Int == 1)
        let plugins = try #require(object["plugins"] as? [[String: Any]])
        let names = plugins.flatMap { ($0["stages"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String } }
        #expect(names.contains("circle-crop") && names.contains("tee") && names.contains("rotate"))
        let one = try CommandRunner.run(["stages", "slice", "--json"])
        let stage = try #require((JSONSerialization.jsonObject(with: Data(one.standardOutput.utf8)) as? [String: Any])?["stage"] as? [String: Any])
        let zoom = try #require((stage["parameters"] as? [[String: Any]])?.first { $0["name"] as? String == "zoom" })
        #expect(zoom["default"] as? String == "1" && zoom["range"] as? [Double] == [1, 1000])
    }
}
