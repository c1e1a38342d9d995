import Foundation
import Testing
import ImagePipe
import TestSupport

@Suite struct ReliabilityTests {
    /// 24 pictures that take a little while each in a debug build.
    private func slowBatch() throws -> TemporaryDirectory {
        let directory = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: directory.file("in"), withIntermediateDirectories: true)
        let picture = try Synthetic.gradient(360, 240).encoded(as: .jpeg)
        for index in 0..<24 { _ = try directory.write(picture, to: String(format: "in/%02d.jpg", index)) }
        return directory
    }

    private func outputs(_ directory: TemporaryDirectory) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory.file("out"))) ?? []).sorted()
    }

    private let slowPipeline = "rotate angle=7 | circle-mask ring=true | save {stem}.png"

    @Test func interruptStopsCleanlyAndSkipExistingResumes() throws {
        let directory = try slowBatch()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CommandRunner.binary)
        process.arguments = ["run", "-e", slowPipeline, "in", "--out-dir", "out", "--jobs", "1"]
        process.currentDirectoryURL = URL(fileURLWithPath: directory.path)
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        // Wait for the first picture to land, then interrupt.
        let deadline = Date().addingTimeInterval(30)
        while outputs(directory).isEmpty, Date() < deadline { usleep(20_000) }
        process.interrupt()
        process.waitUntilExit()
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(process.terminationStatus == 130)
        #expect(message.contains("imagepipe: stopping after the files in progress"))
        let done = outputs(directory)
        #expect(done.count < 24 && !done.isEmpty)
        #expect(message.contains("stopped after \(done.count) of 24 files"), "\(message)")
        #expect(done.allSatisfy { !$0.hasPrefix(".") }, "no temporary files: \(done)")
        for name in done { #expect((try? Image.load(path: directory.file("out/" + name))) != nil, "\(name) is whole") }

        let resumed = try CommandRunner.run(["run", "-e", slowPipeline, "in", "--out-dir", "out", "--skip-existing"], in: directory.path)
        #expect(resumed.status == 0)
        #expect(resumed.standardError.contains("24 files: \(24 - done.count) done, \(done.count) skipped, 0 failed"), "\(resumed.standardError)")
        #expect(outputs(directory).count == 24)
    }

    @Test func killNineLeavesOnlyWholePicturesUnderOutputNames() throws {
        let directory = try slowBatch()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CommandRunner.binary)
        process.arguments = ["run", "-e", slowPipeline, "in", "--out-dir", "out", "--jobs", "2", "-q"]
        process.currentDirectoryURL = URL(fileURLWithPath: directory.path)
        try process.run()
        let deadline = Date().addingTimeInterval(30)
        while outputs(directory).filter({ !$0.hasPrefix(".") }).count < 2, Date() < deadline { usleep(10_000) }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        for name in outputs(directory) where !name.hasPrefix(".") {
            #expect((try? Image.load(path: directory.file("out/" + name))) != nil, "\(name) under an output name is not a whole picture")
        }
    }

    @Test func outputsLargerThanThePixelLimitAreRefusedFromThePlan() throws {
        let directory = try TemporaryDirectory()
        _ = try directory.write(Synthetic.gradient(100, 100).encoded(as: .png), to: "in.png")
        let result = try CommandRunner.run(["run", "-e", "fit 100000x100000", "in.png", "-o", "out.png"], in: directory.path)
        #expect(result.status == 1)
        #expect(result.standardError == "imagepipe: <inline>:1:1: error: fit: would make a 100000x100000 picture (10000000000 pixels), more than the limit of 178956970; raise it with --max-pixels\n")
        #expect(try directory.contents() == ["in.png"])
    }

    /// ThreadSanitizer's own runtime cannot start under a file-size limit (`make sanitize`).
    @Test(.disabled(if: CommandRunner.binary.contains("/.build/tsan/"), "ThreadSanitizer's runtime faults under ulimit -f"))
    func aFullDiskFailsWithOneMessageAndNoHalfFile() throws {
        let directory = try TemporaryDirectory()
        _ = try directory.write(Synthetic.gradient(200, 200).encoded(as: .png), to: "in.png")
        // A file-size limit stands in for a full disk: the write fails part-way.
        let result = try CommandRunner.runProgram("/bin/sh", ["-c", "ulimit -f 8; exec '\(CommandRunner.binary)' run -e '' in.png -o out.bmp"], in: directory.path)
        #expect(result.status == 1)
        #expect(result.standardError == "imagepipe: out.bmp: cannot write: File too large\n")
        #expect(try directory.contents() == ["in.png"])
    }
}
