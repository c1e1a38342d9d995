import Foundation
import Testing
import ImagePipe
import TestSupport

/// The two sample packages, built by `make test` before the tests: a tool embedding ImagePipe
/// and a third-party stage in a command of its own.
@Suite struct SamplePackageTests {
    static let samples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Samples")

    private func product(_ path: String) throws -> String {
        let full = Self.samples.appendingPathComponent(path).path
        try #require(FileManager.default.isExecutableFile(atPath: full), "build it first: make samples (make test does)")
        return full
    }

    @Test func embedDemoUsesTheFrameworkAsALibrary() throws {
        let demo = try product("EmbedDemo/.build/debug/embed-demo")
        let directory = try TemporaryDirectory()
        let result = try CommandRunner.runProgram(demo, [Self.samples.appendingPathComponent("images/leaf.jpg").path, directory.path])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput.contains("built pipeline: 1280x800 → 256x256, alpha true"))
        #expect(result.standardOutput.contains("editor: offset -500,40 bounced back to -10,40"))
        #expect(try Image.load(path: directory.file("masked.png")).size == Size(640, 400))
        #expect(try Image.load(path: directory.file("avatar.png")).size == Size(256, 256))
        let avatar = try Image.load(path: directory.file("editor-avatar.png"))
        #expect(avatar.size == Size(128, 128) && avatar.pixel(x: 0, y: 0) == .transparent)
        #expect(result.standardOutput.contains("batch: 1 written, 1 failed: \(directory.file("leaf-batch.png"))"), "\(result.standardOutput)")
        #expect(result.standardOutput.contains("batch: failed: ") && result.standardOutput.contains("no-such-photo.jpg"))
        #expect(try Image.load(path: directory.file("leaf-batch.png")).size == Size(640, 400))
    }

    @Test func aCommandOfItsOwnWithTheStageCompiledIn() throws {
        let command = try product("CustomStage/.build/debug/my-imagepipe")
        let directory = try TemporaryDirectory()
        let input = Self.samples.appendingPathComponent("images/boats.jpg").path
        let result = try CommandRunner.runProgram(command, ["run", Self.samples.appendingPathComponent("CustomStage/sepia.pipe").path,
                                                            input, "-o", directory.file("old.png")])
        #expect(result.status == 0, "\(result.standardError)")
        let old = try Image.load(path: directory.file("old.png"))
        #expect(old.size == Size(640, 400))
        // Sepia: red above blue for a grey-ish sky.
        let pixel = old.pixel(x: 320, y: 40)
        #expect(pixel.red > pixel.blue)
        // The warping sample, as the guide shows it: the same picture, within JPEG's rounding.
        let swirl = try CommandRunner.runProgram(command, ["run", Self.samples.appendingPathComponent("CustomStage/swirl.pipe").path,
                                                           input, "-o", directory.file("swirl.jpg")])
        #expect(swirl.status == 0, "\(swirl.standardError)")
        let made = try Image.load(path: directory.file("swirl.jpg"))
        let shown = try Image.load(path: Self.samples.appendingPathComponent("CustomStage/swirl.jpg").path)
        #expect(made.size == shown.size)
        let difference = (0..<made.height).map { y in zip(made.row(y), shown.row(y)).map { abs(Int($0) - Int($1)) }.max() ?? 0 }.max() ?? 0
        #expect(difference <= 2, "the swirl differs from the guide's picture by \(difference) levels")
        let stages = try CommandRunner.runProgram(command, ["stages"])
        #expect(stages.standardOutput.contains("sepia — Sepia toning, a vignette, a box blur, a square crop, auto levels and a swirl (a sample third-party plugin)"))
    }

    /// The sample's stages, one or more of each class (point, a point stage that depends on its
    /// place, area, resample, one that surveys, one that warps), compiled in (my-imagepipe) and
    /// loaded at run time (the stock command with the sample plugin): the same plan and
    /// explanation, and streamed, the same bytes.
    @Test func everyClassOfStageIsTheSameCompiledInAndLoaded() throws {
        let command = try product("CustomStage/.build/debug/my-imagepipe")
        let plugin = Self.samples.appendingPathComponent("CustomStage/.build/debug/libSepiaPlugin.so").path
        try #require(FileManager.default.fileExists(atPath: plugin), "build it first: make samples (make test does)")
        let directory = try TemporaryDirectory()
        // Taller than several strips, and different in every row, so that seams would show.
        let picture = try Image.make(size: Size(120, 300), hasAlpha: false) { writer in
            for y in 0..<300 {
                let row = writer.row(y)
                for i in row.indices { row[i] = UInt8(truncatingIfNeeded: (i &* 31) ^ (y &* 57)) }
            }
        }
        _ = try directory.write(picture.encoded(as: .jpeg, options: SaveOptions(quality: 95)), to: "in.jpg")
        let bytes = { (name: String) in try Data(contentsOf: URL(fileURLWithPath: directory.file(name))) }
        for (index, pipeline) in ["sepia 80%", "vignette 70%", "soften 3", "square", "square | soften 2 | vignette", "square 30",
                                  "square 50 | sepia", "stretch", "square 50 | stretch | soften", "swirl 150deg", "swirl radius=60% | sepia"].enumerated() {
            let arguments = ["-e", pipeline, "in.jpg", "-o"]
            let compiledPlan = try CommandRunner.runProgram(command, ["explain"] + arguments + ["out.png"], in: directory.path)
            let loadedPlan = try CommandRunner.run(["explain", "--plugin", plugin] + arguments + ["out.png"], in: directory.path)
            #expect(compiledPlan.status == 0 && loadedPlan.status == 0, "\(pipeline): \(compiledPlan.standardError) \(loadedPlan.standardError)")
            #expect(compiledPlan.standardOutput == loadedPlan.standardOutput, "\(pipeline)")
            #expect(loadedPlan.standardOutput.contains("streamed"), "\(pipeline): \(loadedPlan.standardOutput)")
            let compiled = try CommandRunner.runProgram(command, ["run"] + arguments + ["compiled\(index).png"], in: directory.path)
            let loaded = try CommandRunner.run(["run", "--plugin", plugin] + arguments + ["loaded\(index).png"], in: directory.path)
            #expect(compiled.status == 0 && loaded.status == 0, "\(pipeline): \(compiled.standardError) \(loaded.standardError)")
            #expect(try bytes("compiled\(index).png") == bytes("loaded\(index).png"), "\(pipeline)")
        }
        // A scaled square shrinks on load, loaded as compiled in: 30 of 120 a side, the JPEG decoded
        // at a half (the good mode keeps twice the output's size).
        let reduced = try CommandRunner.run(["explain", "--plugin", plugin, "-e", "square 30", "in.jpg", "-o", "out.png"], in: directory.path)
        #expect(reduced.standardOutput.contains("decoded at 1/2 as 60x150 (shrink-on-load: square wants at least 60x150)"),
                "\(reduced.standardOutput)")
        let square = try Image.load(path: directory.file("loaded3.png"))
        #expect(try square.size == Size(120, 120) && square.pixel(x: 7, y: 0) == Image.load(path: directory.file("in.jpg")).pixel(x: 7, y: 90))
        // The survey's read, and the swirl through the tile cache, loaded as compiled in.
        #expect(try CommandRunner.run(["explain", "--plugin", plugin, "-e", "stretch", "in.jpg", "-o", "out.png"], in: directory.path)
            .standardOutput.contains("read twice: the first read lets stretch measure every pixel"))
        let swirled = try Image.load(path: directory.file("loaded9.png")), input = try Image.load(path: directory.file("in.jpg"))
        #expect(swirled.pixel(x: 0, y: 0) == input.pixel(x: 0, y: 0) && swirled.pixel(x: 60, y: 120) != input.pixel(x: 60, y: 120))
    }
}
