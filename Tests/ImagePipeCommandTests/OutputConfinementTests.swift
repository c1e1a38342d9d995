import Foundation
import ImagePipe
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Nothing is written where it should not be: through a symbolic link planted in the output
/// folder, over a file the run reads (an overlay), or over a folder's own files by `--trace`.
@Suite struct OutputConfinementTests {
    /// A link in the output folder to a file outside it, to a FIFO outside it, and to nowhere:
    /// each output is refused and what the link names is untouched; the other input goes on.
    @Test func symbolicLinksOutOfTheOutputFolderAreRefused() throws {
        let directory = try TemporaryDirectory()
        let png = try Synthetic.gradient(16, 8).encoded(as: .png)
        try FileManager.default.createDirectory(atPath: directory.file("in"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: directory.file("out"), withIntermediateDirectories: true)
        for name in ["a", "b", "c", "d", "e"] { _ = try directory.write(png, to: "in/\(name).png") }
        let victim = try directory.write("keep me", to: "victim.rc")
        #expect(mkfifo(directory.file("fifo"), 0o600) == 0)
        try FileManager.default.createSymbolicLink(atPath: directory.file("out/a.png"), withDestinationPath: victim)
        try FileManager.default.createSymbolicLink(atPath: directory.file("out/b.png"), withDestinationPath: directory.file("fifo"))
        try FileManager.default.createSymbolicLink(atPath: directory.file("out/c.png"), withDestinationPath: directory.file("nowhere.png"))
        // A device outside (as root, /dev/sg* would take the bytes): refused whatever it points at.
        try FileManager.default.createSymbolicLink(atPath: directory.file("out/e.png"), withDestinationPath: "/dev/null")

        let result = try CommandRunner.run(["run", "-e", "grayscale", "in", "--out-dir", "out", "--overwrite"], in: directory.path)
        #expect(result.status == 1, "\(result.standardError)")
        for name in ["a", "b", "c", "e"] {
            #expect(result.standardError.contains("out/\(name).png: cannot write: is a symbolic link leading outside the output directory"),
                    "\(name): \(result.standardError)")
        }
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "keep me")
        #expect(!FileManager.default.fileExists(atPath: directory.file("nowhere.png")))
        #expect(ImageFile.isRegularFileForTests(directory.file("out/d.png")), "the input with a plain name is made")
    }

    /// An overlay is a file the run reads: `save` over it is refused as over the input.
    @Test func anOverlayIsNotReplacedWithoutOverwrite() throws {
        let directory = try TemporaryDirectory()
        _ = try directory.write(Synthetic.gradient(40, 30).encoded(as: .png), to: "photo.png")
        let logo = try Synthetic.gradient(8, 8).encoded(as: .png)
        _ = try directory.write(logo, to: "logo.png")
        let refused = try CommandRunner.run(["run", "-e", "composite logo.png | save logo.png", "photo.png"], in: directory.path)
        #expect(refused.status == 2 && refused.standardError.contains("the output 'logo.png' is the input file 'logo.png'"),
                "\(refused.standardError)")
        #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: directory.file("logo.png")))) == logo)
        let allowed = try CommandRunner.run(["run", "-e", "composite logo.png | save logo.png", "photo.png", "--overwrite"], in: directory.path)
        #expect(allowed.status == 0, "\(allowed.standardError)")
    }

    /// `--trace .` in a folder of the user's own files (an input named like a trace's picture, an
    /// index.html) is refused; a new folder is taken, and a trace's own folder taken again.
    @Test func traceNeverReplacesAFoldersOwnFiles() throws {
        let directory = try TemporaryDirectory()
        let png = try Synthetic.gradient(16, 8).encoded(as: .png)
        _ = try directory.write(png, to: "00-load.png")
        _ = try directory.write("<p>mine</p>", to: "index.html")
        let refused = try CommandRunner.run(["run", "-e", "grayscale", "00-load.png", "-o", "out.png", "--trace", "."], in: directory.path)
        #expect(refused.status == 2 && refused.standardError.contains("the trace folder '.' holds files that are not a trace's (00-load.png, index.html); name a new or empty folder; give --overwrite to replace it"), "\(refused.standardError)")
        #expect(try String(contentsOfFile: directory.file("index.html"), encoding: .utf8) == "<p>mine</p>")
        #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: directory.file("00-load.png")))) == png)
        #expect(!FileManager.default.fileExists(atPath: directory.file("out.png")))

        for _ in 0..<2 {
            let traced = try CommandRunner.run(["run", "-e", "grayscale", "00-load.png", "-o", "out.png", "--trace", "trace", "--overwrite"],
                                               in: directory.path)
            #expect(traced.status == 0, "\(traced.standardError)")
            #expect(FileManager.default.fileExists(atPath: directory.file("trace/index.html")))
        }
    }
}

extension ImageFile {
    /// Whether `path` is a regular file (not a link to one).
    static func isRegularFileForTests(_ path: String) -> Bool {
        var status = stat()
        return lstat(path, &status) == 0 && (status.st_mode & S_IFMT) == S_IFREG
    }
}
