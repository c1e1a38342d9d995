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

    /// `--skip-existing` passes over an input whose outputs exist before reading anything of
    /// it: here a FIFO, whose opening a watcher would see (and then feed, so nothing hangs).
    @Test func skipExistingNeverOpensAFinishedInput() throws {
        let directory = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: directory.file("out"), withIntermediateDirectories: true)
        let png = try Synthetic.gradient(20, 20).encoded(as: .png)
        _ = try directory.write(png, to: "a.png")
        _ = try directory.write(png, to: "out/fifo.png")
        let fifo = directory.file("fifo.png")
        #expect(mkfifo(fifo, 0o644) == 0)
        let opened = Locked(false), finished = Locked(false)
        let watcher = Thread {
            // Opening for writing without blocking succeeds only once someone has it open for reading.
            while !finished.withLock({ $0 }) {
                let descriptor = open(fifo, O_WRONLY | O_NONBLOCK)
                if descriptor >= 0 {
                    opened.withLock { $0 = true }
                    _ = png.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
                    close(descriptor)
                    return
                }
                usleep(5_000)
            }
        }
        watcher.start()
        let result = try CommandRunner.run(["run", "-e", "fit 10x10", "a.png", "fifo.png", "--out-dir", "out", "-o", "{stem}.png",
                                            "--skip-existing"], in: directory.path)
        finished.withLock { $0 = true }
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardError.contains("2 files: 1 done, 1 skipped, 0 failed"), "\(result.standardError)")
        #expect(!opened.withLock { $0 }, "the finished input was opened")
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

    /// Ctrl-C on one large picture: nothing to finish first, so it stops at the next check
    /// (between stages, or between the PNG encoder's rows), writes nothing and exits 130.
    @Test func interruptingOnePictureStopsPromptlyAndWritesNothing() throws {
        let directory = try TemporaryDirectory()
        _ = try directory.write(Synthetic.gradient(300, 200).encoded(as: .png), to: "in.png")
        // A cheap 8000x6000 canvas, then its PNG: nearly all the time is the encoder's row
        // filtering, which the signal can stop (deflate at level 1 on flat rows is quick).
        let pipeline = "extend right=7700 bottom=5800 | save out.png compression=1"
        let clock = ContinuousClock()
        let start = clock.now
        // No time limit: under ThreadSanitizer (`make sanitize`) the whole run takes past the default 60 s.
        #expect(try CommandRunner.run(["run", "--timeout", "0", "-e", pipeline, "in.png"], in: directory.path).status == 0)
        let whole = clock.now - start
        try FileManager.default.removeItem(atPath: directory.file("out.png"))
        let seconds = { (duration: Duration) in Double(duration.components.seconds) + Double(duration.components.attoseconds) * 1e-18 }
        let total = seconds(whole)
        #expect(total > 0.5, "the run is long enough for the test to mean something")

        let process = Process()
        process.executableURL = URL(fileURLWithPath: CommandRunner.binary)
        process.arguments = ["run", "--timeout", "0", "-e", pipeline, "in.png"]
        process.currentDirectoryURL = URL(fileURLWithPath: directory.path)
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        let wait = total * 0.3
        usleep(UInt32(wait * 1_000_000))
        let interrupted = clock.now
        process.interrupt()
        process.waitUntilExit()
        let stopped = seconds(clock.now - interrupted)
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(process.terminationStatus == 130, "\(message)")
        // Stopped, not finished: the encoder noticed the signal between its rows (a run left to
        // end would exit 0 with its file). No time ratio: a loaded machine stretches both runs
        // unevenly; the bound is only against a hang.
        // Under ThreadSanitizer (`make sanitize`) the stop may take past the 0.9 s grace, and the
        // command then ends at once, as it would for a stage that did not look at the signal.
        let graceRanOut = CommandRunner.binary.contains("/.build/tsan/") && message.hasPrefix("imagepipe: stopped at once")
        #expect(graceRanOut || message.contains("interrupted: stopped before it was finished; nothing written"), "\(message)")
        #expect(stopped < 60, "stopped \(stopped) s after the signal")
        #expect(try directory.contents() == ["in.png"], "no output and no temporary file")
    }

    /// A PNG whose header claims 100000x100000 pixels (40 GB of RGBA) and holds almost nothing.
    private func bomb() -> [UInt8] {
        func crc32(_ bytes: [UInt8]) -> UInt32 {
            var crc: UInt32 = 0xFFFF_FFFF
            for byte in bytes {
                crc ^= UInt32(byte)
                for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
            }
            return ~crc
        }
        func bigEndian(_ value: UInt32) -> [UInt8] { [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)] }
        func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
            bigEndian(UInt32(data.count)) + Array(type.utf8) + data + bigEndian(crc32(Array(type.utf8) + data))
        }
        let header = bigEndian(100_000) + bigEndian(100_000) + [8, 6, 0, 0, 0]
        return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + chunk("IHDR", header) + chunk("IDAT", [0x78, 0x9C, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01]) + chunk("IEND", [])
    }

    @Test func decompressionBombsAreRefusedFromTheHeader() throws {
        let directory = try TemporaryDirectory()
        _ = try directory.write(bomb(), to: "bomb.png")
        let start = Date()
        let result = try CommandRunner.run(["run", "-e", "fit 100x100", "bomb.png", "-o", "out.png"], in: directory.path)
        #expect(result.status == 1)
        #expect(result.standardError == "imagepipe: bomb.png: too large: 100000x100000 is 10000000000 pixels, more than the limit of 178956970; raise the limit with --max-pixels\n")
        #expect(Date().timeIntervalSince(start) < 5, "refused from the header, without decoding")
        // From standard input too, where the header comes from the data itself.
        let piped = try CommandRunner.run(["run", "-e", "fit 100x100", "-", "-o", "out.png"], in: directory.path, input: bomb())
        #expect(piped.status == 1)
        #expect(piped.standardError.contains("too large"), "\(piped.standardError)")
        #expect(try directory.contents() == ["bomb.png"])
    }

    @Test func outputsLargerThanThePixelLimitAreRefusedFromThePlan() throws {
        let directory = try TemporaryDirectory()
        _ = try directory.write(Synthetic.gradient(100, 100).encoded(as: .png), to: "in.png")
        let result = try CommandRunner.run(["run", "-e", "fit 100000x100000", "in.png", "-o", "out.png"], in: directory.path)
        #expect(result.status == 1)
        #expect(result.standardError == "imagepipe: <inline>:1:1: error: fit: would make a 100000x100000 picture (10000000000 pixels), more than the limit of 178956970; raise the limit with --max-pixels\n")
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
