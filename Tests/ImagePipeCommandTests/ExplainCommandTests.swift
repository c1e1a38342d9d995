import Foundation
import Testing
import ImagePipe
import TestSupport

/// `explain` takes `run`'s options: a machine-readable plan, standard input, output naming and
/// the limits.
@Suite struct ExplainCommandTests {
    private func picture() throws -> TemporaryDirectory {
        let directory = try TemporaryDirectory()
        _ = try directory.write(Synthetic.gradient(80, 60).encoded(as: .png), to: "a.png")
        return directory
    }

    @Test func jsonGivesThePlanToMachines() throws {
        let directory = try picture()
        let result = try CommandRunner.run(["explain", "-e", "fit 40x40 | save", "a.png", "-o", "thumbs/", "--format", "jpeg", "--json"], in: directory.path)
        #expect(result.status == 0, "\(result.standardError)")
        let plan = try #require(JSONSerialization.jsonObject(with: Data(result.outputBytes)) as? [String: Any])
        #expect(plan["schemaVersion"] as? Int == 1)
        #expect(plan["input"] as? String == "a.png")
        #expect(plan["format"] as? String == "png")
        #expect(plan["storedSize"] as? [Int] == [80, 60])
        let stages = try #require(plan["stages"] as? [[String: Any]])
        #expect(stages.map { $0["stage"] as? String } == ["load", "fit 40x40", "save"])
        #expect(stages[1]["input"] as? [Int] == [80, 60])
        #expect(stages[1]["output"] as? [Int] == [40, 30])
        #expect(stages[2]["destination"] as? String == "thumbs/a.jpg")
        #expect(try directory.contents() == ["a.png"], "nothing written")
    }

    /// Where the decoder writes the whole picture before it tells of a row (libwebp's
    /// incremental decoder), the plan says the decoded picture is held, naming the library;
    /// a JPEG's rows go through a ring.
    @Test func aDecoderThatWritesWholeIsNamed() throws {
        let directory = try TemporaryDirectory()
        for format in [ImageFormat.webp, .jpeg] {
            _ = try directory.write(Synthetic.gradient(200, 300).encoded(as: format), to: "a.\(format.rawValue)")
            let result = try CommandRunner.run(["explain", "-e", "resize 50%", "a.\(format.rawValue)", "-o", "b.jpg"], in: directory.path)
            #expect(result.status == 0, "\(result.standardError)")
            let expected = format == .webp ? "which libwebp writes whole)" : "(decoded rows in a ring of about"
            #expect(result.standardOutput.contains(expected), "\(format): \(result.standardOutput)")
        }
    }

    @Test func standardInputIsExplainedFromItsHeader() throws {
        let directory = try picture()
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: directory.file("a.png"))))
        let result = try CommandRunner.run(["explain", "-e", "fit 40x40", "-", "--out-dir", "o"], in: directory.path, input: bytes)
        #expect(result.status == 0, "\(result.standardError)")
        let lines = result.standardOutput.split(separator: "\n")
        #expect(lines.first == "-: png 80x60")
        #expect(lines.dropLast().last?.hasSuffix("40x30 → o/stdin.png") == true, "\(result.standardOutput)")
        #expect(lines.last?.hasPrefix("memory: about ") == true, "\(result.standardOutput)")
        // The limits hold there as in run.
        let limited = try CommandRunner.run(["explain", "-e", "fit 40x40", "-", "--max-input-bytes", "100"], in: directory.path, input: bytes)
        #expect(limited.status == 1)
        #expect(limited.standardError.contains("more than 100 bytes"), "\(limited.standardError)")
    }
}
