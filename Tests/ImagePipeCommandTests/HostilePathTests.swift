import Foundation
import Testing
import ImagePipe
import TestSupport

/// Output names and placement treat paths as bytes: no Unicode trick leaves --out-dir, and a
/// refused path makes nothing outside it.
@Suite struct HostilePathTests {
    private func setUp() throws -> TemporaryDirectory {
        let directory = try TemporaryDirectory()
        _ = try directory.write(Synthetic.gradient(40, 30).encoded(as: .png), to: "in.png")
        return directory
    }

    /// Every file and directory under `path`, relative, sorted.
    private func tree(_ path: String) -> [String] {
        (FileManager.default.enumerator(atPath: path)?.allObjects as? [String] ?? []).sorted()
    }

    @Test(arguments: ["../\u{200D}{stem}.png", "a/../../\u{200D}{stem}.png", "..\u{301}/../../{stem}.png", "/\u{301}tmp/{stem}.png"])
    func aJoiningMarkAfterASlashDoesNotHideDotDot(template: String) throws {
        let directory = try setUp()
        let result = try CommandRunner.run(["run", "-e", "", "in.png", "--out-dir", "out", "-o", template], in: directory.path)
        #expect(result.status == 2, "\(result.standardError)")
        #expect(result.standardError.contains("is outside the output directory 'out'"), "\(result.standardError)")
        #expect(try directory.contents() == ["in.png"], "nothing written or made outside")
    }

    @Test func aNameThatMerelyLooksLikeDotDotStaysInside() throws {
        let directory = try setUp()
        let result = try CommandRunner.run(["run", "-e", "", "in.png", "--out-dir", "out", "-o", "..\u{301}/{stem}.png"], in: directory.path)
        #expect(result.status == 0, "\(result.standardError)")
        #expect(tree(directory.file("out")) == ["..\u{301}", "..\u{301}/in.png"])
    }

    @Test func aSymbolicLinkToALookalikeDirectoryIsOutside() throws {
        let directory = try setUp()
        let composed = "caf\u{E9}", decomposed = "cafe\u{301}"
        #expect(composed == decomposed, "Swift calls them equal; the file system does not")
        try FileManager.default.createDirectory(atPath: directory.file(composed), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: directory.file(decomposed), withIntermediateDirectories: true)
        #expect(symlink("../" + decomposed, directory.file(composed + "/link")) == 0)
        let result = try CommandRunner.run(["run", "-e", "", "in.png", "--out-dir", composed, "-o", "link/{stem}.png"], in: directory.path)
        #expect(result.status == 1)
        #expect(result.standardError.contains("outside the output directory"), "\(result.standardError)")
        #expect(result.standardError.contains("differ only in their Unicode form"), "\(result.standardError)")
        #expect(tree(directory.file(decomposed)).isEmpty, "nothing written through the link")
    }

    @Test func aRefusedLinkMakesNoDirectoryOutside() throws {
        let directory = try setUp()
        try FileManager.default.createDirectory(atPath: directory.file("out"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: directory.file("elsewhere"), withIntermediateDirectories: true)
        #expect(symlink(directory.file("elsewhere"), directory.file("out/link")) == 0)
        let result = try CommandRunner.run(["run", "-e", "", "in.png", "--out-dir", "out", "-o", "link/a/b/{stem}.png"], in: directory.path)
        #expect(result.status == 1)
        #expect(result.standardError.hasSuffix("outside the output directory 'out'\n"), "\(result.standardError)")
        #expect(tree(directory.file("elsewhere")).isEmpty, "checked before made: no a/b outside")
    }

    @Test func templatesAndNamesCutAtBytes() throws {
        // A dot or slash followed by a combining mark is still a dot or a slash to the kernel.
        #expect(try OutputTemplate.expand("{stem}|{ext}", input: "in/a.\u{301}png", inputRoot: nil, index: 1) == "a|\u{301}png")
        #expect(try OutputTemplate.expand("{name}", input: "in/\u{301}x.png", inputRoot: nil, index: 1) == "\u{301}x.png")
        #expect(try OutputTemplate.expand("{dir}", input: "caf\u{E9}/x/y.png", inputRoot: "cafe\u{301}", index: 1) == ".",
                "a lookalike root is not the input's root")
        #expect(throws: StageError.self) { try OutputTemplate.place("../\u{200D}x.png", in: "out") }
        #expect(try OutputTemplate.place("a/../\u{200D}x.png", in: "out") == "out/a/../\u{200D}x.png")
        #expect(!PathBytes.isWithin("/tmp/cafe\u{301}", "/tmp/caf\u{E9}"))
        #expect(PathBytes.isWithin("/tmp/caf\u{E9}/x", "/tmp/caf\u{E9}"))
        #expect("<\u{301}b>".replacingAll("<", with: "&lt;") == "&lt;\u{301}b>", "HTML escaping of traces matches bytes")
    }

    @Test func lookalikeOutputNamesAreTwoFiles() throws {
        let directory = try TemporaryDirectory()
        _ = try directory.write(Synthetic.gradient(10, 10).encoded(as: .png), to: "caf\u{E9}.png")
        _ = try directory.write(Synthetic.gradient(10, 10).encoded(as: .png), to: "cafe\u{301}.png")
        let result = try CommandRunner.run(["run", "-e", "", "caf\u{E9}.png", "cafe\u{301}.png", "--out-dir", "out", "-o", "{stem}.bmp"], in: directory.path)
        #expect(result.status == 0, "\(result.standardError)")
        #expect(tree(directory.file("out")).count == 2)
    }
}
