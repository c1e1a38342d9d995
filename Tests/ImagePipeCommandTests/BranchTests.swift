import Foundation
import Testing
import ImagePipe
import ImagePipeCommand
import ImagePipeStages
import TestSupport

/// `branch { … } { … }`: several outputs from one decode, each group from the picture as it is
/// at the branch, not one output from another.
@Suite struct BranchTests {
    /// 1000x667: 640 wide is 640x427 (426.9), and 320 wide from that would be 320x214 (213.5),
    /// where 320 wide from the original is 320x213 (213.4).
    static func picture(in directory: TemporaryDirectory) throws -> String {
        try directory.write(Synthetic.image(1000, 667) { x, y in Color(red: UInt8(x % 256), green: UInt8(y % 256), blue: UInt8((x + y) % 256)) }
            .encoded(as: .png), to: "in.png")
    }

    /// The run's result names every file written with the size of its picture: a tee's, and each
    /// group's own.
    @Test func theResultGivesEveryOutputItsSize() throws {
        let directory = try TemporaryDirectory()
        let input = try Self.picture(in: directory)
        let pipeline = try StandardPlugins.compiler.compile("tee a.png | resize 500x | branch { resize 100x | save b.png } { save c.png }")
        let result = try pipeline.run(in: RunContext(input: input, outputDirectory: directory.path))
        #expect(result.written.map(\.size) == [Size(1000, 667), Size(100, 67), Size(500, 334)])
        #expect(result.written.map { PathBytes.lastComponent($0.path) } == ["a.png", "b.png", "c.png"])
        #expect(try result.written.allSatisfy { try Image.load(path: $0.path).size == $0.size })
    }

    @Test func eachGroupStartsFromThePictureAtTheBranch() throws {
        let directory = try TemporaryDirectory()
        let input = try Self.picture(in: directory)
        let result = try CommandRunner.run(["run", "-e", "branch { resize 640x | save {stem}-640.png } { resize 320x | save {stem}-320.png }", input, "--json"],
                                           in: directory.path)
        #expect(result.status == 0, "\(result.standardError)")
        let json = JSONValue.parse(result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(json?["outputs"]?.arrayValue?.compactMap(\.stringValue) == ["in-640.png", "in-320.png"], "in the order of the groups")
        let small = try Image.load(path: directory.file("in-320.png"))
        #expect(small.size == Size(320, 213), "from the original, as every other tool makes it (a chain of tee gives 320x214)")
        // The same pixels as a run of that group alone.
        #expect(try CommandRunner.run(["run", "-e", "resize 320x", input, "-o", directory.file("alone.png")]).status == 0)
        #expect(try PictureComparison(small, Image.load(path: directory.file("alone.png"))).identical)
        #expect(try Image.load(path: directory.file("in-640.png")).size == Size(640, 427))
    }

    @Test func stagesBeforeTheBranchAndNestedBranches() throws {
        let directory = try TemporaryDirectory()
        let input = try Self.picture(in: directory)
        let text = "grayscale | branch { resize 100x | branch { save a.png } { flip | save b.png } } { save c.jpg quality=70 }"
        #expect(try CommandRunner.run(["run", "-e", text, input], in: directory.path).status == 0)
        let (a, b, c) = (try Image.load(path: directory.file("a.png")), try Image.load(path: directory.file("b.png")), try Image.load(path: directory.file("c.jpg")))
        #expect(a.size == Size(100, 67) && b.size == a.size && c.size == Size(1000, 667))
        #expect(b.pixel(x: 10, y: 0) == a.pixel(x: 10, y: 66), "b is a flipped")
        #expect(a.pixel(x: 50, y: 30).red == a.pixel(x: 50, y: 30).blue, "gray before the branch, in every group")
        // The canonical text is a tree, and it compiles back to itself.
        let check = try CommandRunner.run(["check", "-e", text])
        #expect(check.status == 0)
        let again = try CommandRunner.run(["check", "-e", check.standardOutput])
        #expect(again.standardOutput == check.standardOutput)
        #expect(check.standardOutput.contains("branch {\n  resize 100x\n  branch {\n    save a.png\n  } {\n    flip\n    save b.png\n  }\n} {\n  save c.jpg quality=70\n}"),
                "\(check.standardOutput)")
        // explain shows the tree, each group's stages under its number.
        let explained = try CommandRunner.run(["explain", "-e", text, input], in: directory.path).standardOutput
        #expect(explained.contains("{1} resize 100x") && explained.contains("  {2} flip") && explained.contains("{2} save c.jpg quality=70"), "\(explained)")
    }

    @Test func aTraceShowsTheTree() throws {
        let directory = try TemporaryDirectory()
        let input = try Self.picture(in: directory)
        let result = try CommandRunner.run(["run", "-e", "fit 500x500 | branch { resize 100x | save a.png } { resize 50x | branch { save b.png } { flip | save c.png } }",
                                            input, "--trace", "trace"], in: directory.path)
        #expect(result.status == 0, "\(result.standardError)")
        let page = try String(contentsOfFile: directory.file("trace/index.html"), encoding: .utf8)
        let captions = page.split(separator: "<figcaption>").dropFirst().map { $0.prefix { $0 != "<" } }
        #expect(captions == ["0. load", "1. fit 500x500", "2. branch", "3. {1} resize 100x", "4. {1} save a.png", "5. {2} resize 50x",
                             "6. {2} branch", "7. {2} {1} save b.png", "8. {2} {2} flip", "9. {2} {2} save c.png"], "\(captions)")
        // Each picture is the stage's: the flip's is the 50-wide picture upside down.
        let resized = try Image.load(path: directory.file("trace/05-resize.png")), flipped = try Image.load(path: directory.file("trace/08-flip.png"))
        #expect(flipped.size == resized.size && flipped.pixel(x: 3, y: 0) == resized.pixel(x: 3, y: resized.height - 1))
    }

    @Test(arguments: [
        ("branch { resize 320x }", "each group of a branch ends in its own save PATH (here: 'resize')"),
        ("branch { resize 320x | save }", "each group of a branch ends in its own save PATH (here: 'save')"),
        ("branch { }", "an empty group"),
        ("branch", "branch: give its groups"),
        ("branch { save a.png", "the group begun here is not closed: add '}'"),
        ("resize 320x }", "'}' closes no group"),
        ("resize 320x { save a.png }", "only branch takes groups of stages in braces; resize takes none"),
        ("branch { load | save a.png }", "'load' cannot stand inside a group before its end"),
        ("branch { save a.png } | fit 10x10", "'branch' writes the picture, so it must be the last stage"),
    ])
    func mistakesAreReportedWhereTheyAre(text: String, message: String) throws {
        let result = try CommandRunner.run(["check", "-e", text])
        #expect(result.status == 2)
        #expect(result.standardError.contains("error: " + message), "\(text): \(result.standardError)")
    }

    @Test func outputsAreAllOrNothingAndNamedOnce() throws {
        let directory = try TemporaryDirectory()
        let input = try Self.picture(in: directory)
        // The second group's crop does not fit: refused from the plan, before anything is written.
        let bad = try CommandRunner.run(["run", "-e", "branch { save a.png } { crop 0,0,5000x10 | save b.png }", input], in: directory.path)
        #expect(bad.status == 1 && bad.standardError.contains("does not lie inside"), "\(bad.standardError)")
        #expect(!FileManager.default.fileExists(atPath: directory.file("a.png")))
        // A group that fails as it writes takes back what the others wrote.
        try FileManager.default.createDirectory(atPath: directory.file("taken.png"), withIntermediateDirectories: false)
        let unwritable = try CommandRunner.run(["run", "-e", "branch { save a.png } { save taken.png }", input], in: directory.path)
        #expect(unwritable.status != 0)
        #expect(!FileManager.default.fileExists(atPath: directory.file("a.png")), "a.png withdrawn")
        // Two groups naming one file, and -o beside the branch's own names, are refused.
        let twice = try CommandRunner.run(["run", "-e", "branch { save a.png } { flip | save a.png }", input], in: directory.path)
        #expect(twice.status == 2, "\(twice.standardError)")
        let withOutput = try CommandRunner.run(["run", "-e", "branch { save a.png } { save b.png }", input, "-o", "c.png"], in: directory.path)
        #expect(withOutput.status == 2 && withOutput.standardError.contains("the pipeline's branch names its own outputs"))
    }

    @Test func theGroupsCountInTheLimitsAndTheMemoryBudget() throws {
        let directory = try TemporaryDirectory()
        let input = try Self.picture(in: directory)
        // A group's picture past --max-pixels is refused before any work.
        let huge = try CommandRunner.run(["run", "-e", "branch { save a.png } { resize 20000x20000 fit=cover | save b.png }", input, "--max-pixels", "100000000"],
                                         in: directory.path)
        #expect(huge.status == 1 && huge.standardError.contains("resize 20000x20000 fit=cover in a group would make a 20000x20000 picture"), "\(huge.standardError)")
        #expect(!FileManager.default.fileExists(atPath: directory.file("a.png")))
        // The memory a run reserves counts the largest group.
        let compiler = StandardPlugins.compiler
        let plain = try compiler.compile("branch { save a.png } { save b.png }").plan(sourceSize: Size(1000, 1000))
        let big = try compiler.compile("branch { save a.png } { resize 4000x4000 | save b.png }").plan(sourceSize: Size(1000, 1000))
        #expect(big.estimatedPeakBytes() - plain.estimatedPeakBytes() >= 4 * 16_000_000, "the 16-megapixel group's picture at least")
    }

    @Test func aBatchBranchesEveryInput() throws {
        let directory = try TemporaryDirectory()
        _ = try Self.picture(in: directory)
        try FileManager.default.copyItem(atPath: directory.file("in.png"), toPath: directory.file("second.png"))
        let result = try CommandRunner.run(["run", "-e", "branch { resize 64x | save {stem}-64.png } { resize 32x | save {stem}-32.webp }",
                                            "in.png", "second.png", "--out-dir", "out"], in: directory.path)
        #expect(result.status == 0, "\(result.standardError)")
        for name in ["in-64.png", "in-32.webp", "second-64.png", "second-32.webp"] {
            #expect(FileManager.default.fileExists(atPath: directory.file("out/\(name)")), "\(name)")
        }
        #expect(result.standardError.contains("in.png → out/in-64.png, out/in-32.webp\n"), "\(result.standardError)")
    }
}
