import Foundation
import Testing
import ImagePipe
import TestSupport

/// No output replaces an input, a device or a directory.
@Suite struct OutputReplacementTests {
    private func setUp() throws -> (TemporaryDirectory, [UInt8]) {
        let directory = try TemporaryDirectory()
        let bytes = try Synthetic.gradient(40, 30).encoded(as: .png)
        _ = try directory.write(bytes, to: "p.png")
        return (directory, bytes)
    }

    private func fileType(_ path: String) -> mode_t? {
        var status = stat()
        return stat(path, &status) == 0 ? status.st_mode & S_IFMT : nil
    }

    @Test(arguments: ["load p.png | fit 10x10 | save p.png", "load p.png | tee p.png | fit 10x10 | save small.png",
                      "load ./p.png | save link.png"])
    func aPipelineNeverReplacesTheFileItLoads(pipeline: String) throws {
        let (directory, bytes) = try setUp()
        #expect(symlink("p.png", directory.file("link.png")) == 0)
        let result = try CommandRunner.run(["run", "-e", pipeline], in: directory.path)
        #expect(result.status == 2)
        #expect(result.standardError.contains("is the input file"), "\(result.standardError)")
        #expect(result.standardError.contains("--overwrite"), "\(result.standardError)")
        #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: directory.file("p.png")))) == bytes)
        #expect(try directory.contents() == ["link.png", "p.png"], "nothing else written either")
        let allowed = try CommandRunner.run(["run", "-e", pipeline, "--overwrite"], in: directory.path)
        #expect(allowed.status == 0, "\(allowed.standardError)")
    }

    /// The profile `save profile=FILE` reads and the pipeline file are read by the run too: an
    /// output over either is refused before any work, and the file is as it was.
    @Test(arguments: [(["-e", "save profile=p.icc", "p.png", "-o", "p.icc"], "p.icc"),
                      (["avatar.pipe", "p.png", "-o", "avatar.pipe"], "avatar.pipe")])
    func theProfileAndThePipelineFileAreNotReplaced(arguments: [String], kept: String) throws {
        let (directory, _) = try setUp()
        let profile = try [UInt8](Data(contentsOf: URL(fileURLWithPath: "/usr/share/color/icc/colord/sRGB.icc")))
        _ = try directory.write(profile, to: "p.icc")
        _ = try directory.write("fit 10x10\n", to: "avatar.pipe")
        let before = try [UInt8](Data(contentsOf: URL(fileURLWithPath: directory.file(kept))))
        let result = try CommandRunner.run(["run"] + arguments + ["--format", "png"], in: directory.path)
        #expect(result.status == 2)
        #expect(result.standardError.contains("the output '\(kept)' is the input file"), "\(result.standardError)")
        #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: directory.file(kept)))) == before)
    }

    @Test func devNullIsWrittenThroughAndStaysADevice() throws {
        let (directory, _) = try setUp()
        let result = try CommandRunner.run(["run", "-e", "fit 10x10", "p.png", "-o", "/dev/null", "--format", "png"], in: directory.path)
        #expect(result.status == 0, "\(result.standardError)")
        #expect(fileType("/dev/null") == S_IFCHR, "/dev/null is still a character device")
        #expect(try directory.contents() == ["p.png"])
        #expect(!((try? FileManager.default.contentsOfDirectory(atPath: "/dev")) ?? []).contains { $0.contains("imagepipe-") },
                "no temporary file left in /dev")
    }

    @Test func aFIFOIsWrittenThroughToItsReader() throws {
        let (directory, _) = try setUp()
        #expect(mkfifo(directory.file("pipe.png"), 0o644) == 0)
        let reader = Process()
        reader.executableURL = URL(fileURLWithPath: "/bin/sh")
        reader.arguments = ["-c", "cat pipe.png > got.png"]
        reader.currentDirectoryURL = URL(fileURLWithPath: directory.path)
        try reader.run()
        let result = try CommandRunner.run(["run", "-e", "fit 10x10", "p.png", "-o", "pipe.png"], in: directory.path)
        if result.status != 0 { reader.terminate() } // nobody will open the FIFO: do not wait forever
        reader.waitUntilExit()
        #expect(result.status == 0, "\(result.standardError)")
        #expect(fileType(directory.file("pipe.png")) == S_IFIFO, "still a FIFO")
        #expect(try Image.load(path: directory.file("got.png")).size == Size(10, 8))
        #expect(try directory.contents() == ["got.png", "p.png", "pipe.png"])
    }

    @Test func aDirectoryIsRefusedBeforeAnyWork() throws {
        let (directory, _) = try setUp()
        try FileManager.default.createDirectory(atPath: directory.file("d.png"), withIntermediateDirectories: true)
        let result = try CommandRunner.run(["run", "-e", "fit 10x10", "p.png", "-o", "d.png"], in: directory.path)
        #expect(result.status == 2)
        #expect(result.standardError == "imagepipe: the output 'd.png' is a directory; give a file name, or 'd.png/' to write into it\n")
        #expect(fileType(directory.file("d.png")) == S_IFDIR)
        // And at write time, for code that calls the framework directly.
        #expect(throws: ImageError(.unwritable, path: directory.file("d.png"), reason: "is a directory; only a file, a character device or a FIFO can be written")) {
            try [UInt8](repeating: 0, count: 4).withUnsafeBytes { try ImageFile.writeAtomically($0, to: directory.file("d.png")) }
        }
    }
}
