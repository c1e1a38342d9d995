import Foundation
import Testing
import ImagePipe
import ImagePipeCommand
import ImagePipeStages
import TestSupport

/// Every pipeline in Samples/ runs with the built command on its bundled picture, and its
/// output matches the expected picture in Samples/expected/ within a per-channel tolerance.
/// Re-recording the expected pictures is an explicit act: `make goldens`.
@Suite struct SampleTests {
    static let samples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Samples")

    static var pipelines: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: samples.path)) ?? []).filter { $0.hasSuffix(".pipe") }.sorted()
    }

    /// The `# key: value` header lines of a sample.
    static func header(_ key: String, in text: String) -> String? {
        text.split(separator: "\n").first { $0.hasPrefix("# \(key): ") }.map { String($0.dropFirst(key.count + 4)) }
    }

    /// The largest difference in any channel between two same-size pictures.
    static func largestDifference(_ a: Image, _ b: Image) -> Int {
        var largest = 0
        for y in 0..<a.height {
            for x in 0..<a.width {
                let p = a.pixel(x: x, y: y), q = b.pixel(x: x, y: y)
                largest = max(largest, abs(Int(p.red) - Int(q.red)), abs(Int(p.green) - Int(q.green)),
                              abs(Int(p.blue) - Int(q.blue)), abs(Int(p.alpha) - Int(q.alpha)))
            }
        }
        return largest
    }

    @Test func everyStageHasASample() throws {
        let texts = try Self.pipelines.map { try String(contentsOf: Self.samples.appendingPathComponent($0), encoding: .utf8) }
        for name in StandardPlugins.registry.stageNames {
            #expect(texts.contains { $0.split(separator: "\n").contains { line in
                !line.hasPrefix("#") && line.split(whereSeparator: { $0 == " " || $0 == "|" }).contains { $0 == name }
            } }, "no sample uses '\(name)'")
        }
    }

    /// `make demo` runs Samples/run-samples.sh, which decides from each sample's text alone
    /// whether to pass `-o`; every sample passes through it and leaves its named output.
    @Test func theDemoScriptRunsEverySample() throws {
        let directory = try TemporaryDirectory()
        let script = Self.samples.appendingPathComponent("run-samples.sh").path
        let result = try CommandRunner.runProgram("/bin/bash", [script, CommandRunner.binary, directory.path])
        #expect(result.status == 0, "\(result.standardError)")
        for pipeline in Self.pipelines {
            let text = try String(contentsOf: Self.samples.appendingPathComponent(pipeline), encoding: .utf8)
            let output = try #require(Self.header("output", in: text))
            #expect(FileManager.default.fileExists(atPath: directory.file(output)), "\(pipeline) left no \(output)")
        }
    }

    @Test(arguments: pipelines)
    func sampleRunsAndMatchesItsExpectedPicture(pipeline: String) throws {
        let file = Self.samples.appendingPathComponent(pipeline)
        let text = try String(contentsOf: file, encoding: .utf8)
        let input = try #require(Self.header("input", in: text), "\(pipeline) has no '# input:' line")
        let outputName = try #require(Self.header("output", in: text), "\(pipeline) has no '# output:' line")
        let directory = try TemporaryDirectory()
        let inputPath = Self.samples.appendingPathComponent(input).path
        // A pipeline that names its own output gets no -o (the two would clash); its name is the header's.
        let sink = try PipelineCompiler(registry: StandardPlugins.registry).compile(text).sink
        let namesItsOutput = (sink as? Save)?.path != nil || sink is Branch
        let result = try CommandRunner.run(["run", file.path, inputPath, "--out-dir", directory.path] + (namesItsOutput ? [] : ["-o", outputName]))
        #expect(result.status == 0, "\(result.standardError)")
        let output = try Image.load(path: directory.file(outputName))

        // The output is the size the plan said, from the header alone; every output is there.
        let compiled = try StandardPlugins.compiler.compile(text, file: pipeline)
        let context = RunContext(input: inputPath, output: outputName, outputDirectory: directory.path)
        // (After a stage whose size depends on the pixels, like trim, the plan is an estimate
        // and the expected picture alone pins the size.)
        let plan = try compiled.plan(in: context)
        // A tile pyramid's output named in the header is one of its tiles; its .dzi is the path written.
        let pyramid = (compiled.sink as? Save)?.writesPyramid(in: context) == true
        // lossless=trim drops the partial blocks it cannot move, a few pixels the plan does not know of.
        let trims = (compiled.sink as? Save)?.options.losslessMode == .trim
        if plan.isExact, !(sink is Branch), !pyramid, !trims { #expect(output.size == plan.outputSize) } // a branch's outputs have sizes of their own
        for path in try compiled.outputs(in: context) {
            #expect(pyramid ? FileManager.default.fileExists(atPath: path) : (try? ImageHeader.read(path: path)) != nil, "\(pipeline) did not write \(path)")
        }

        let expectedPath = Self.samples.appendingPathComponent("expected").appendingPathComponent(outputName).path
        if ProcessInfo.processInfo.environment["IMAGEPIPE_RECORD_GOLDENS"] == "1" {
            try? FileManager.default.removeItem(atPath: expectedPath)
            try FileManager.default.copyItem(atPath: directory.file(outputName), toPath: expectedPath)
            return
        }
        let expected = try Image.load(path: expectedPath)
        // An animation is compared by its first frame and its number of frames.
        #expect(try ImageHeader.read(path: directory.file(outputName)).frameCount == ImageHeader.read(path: expectedPath).frameCount)
        #expect(expected.size == output.size)
        #expect(expected.hasAlpha == output.hasAlpha)
        guard expected.size == output.size else { return }
        let tolerance = Int(Self.header("tolerance", in: text) ?? "") ?? 3
        #expect(Self.largestDifference(expected, output) <= tolerance, "\(pipeline) differs from Samples/expected/\(outputName)")
    }
}
