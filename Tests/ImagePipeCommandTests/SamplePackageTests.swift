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
        let stages = try CommandRunner.runProgram(command, ["stages"])
        #expect(stages.standardOutput.contains("sepia — Sepia toning and a vignette (a sample third-party plugin)"))
    }
}
