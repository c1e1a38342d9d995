import Foundation
import ImagePipe
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Quarter turns and mirrors in a streamed run: through a tile cache, in memory or in a
/// temporary file that no way out leaves behind.
@Suite(.timeLimit(.minutes(10))) struct TurnCommandTests {
    @Test func turnsAndMirrorsStreamToTheOrdinaryBytes() throws {
        let directory = try TemporaryDirectory()
        _ = try directory.write(StreamedRunCommandTests.photo(300, 211), to: "in.jpg")
        for pipeline in ["rotate 90", "flip", "rotate 270 | grayscale", "rotate 180 | blur 2", "crop 10,20,200x150 | rotate 90 | resize 50%"] {
            // PNG out: JPEG to JPEG through turns alone moves the DCT coefficients instead (lossless).
            let plan = try CommandRunner.run(["explain", "-e", pipeline, "in.jpg", "-o", "out.png"], in: directory.path)
            #expect(plan.standardOutput.contains("streamed:"), "\(pipeline): \(plan.standardOutput)")
            let streamed = try CommandRunner.run(["run", "-e", pipeline, "in.jpg", "-o", "streamed.png"], in: directory.path)
            let ordinary = try CommandRunner.run(["run", "--trace", "trace", "-e", pipeline, "in.jpg", "-o", "ordinary.png"], in: directory.path)
            #expect(streamed.status == 0 && ordinary.status == 0, "\(streamed.standardError)\(ordinary.standardError)")
            let bytes = { (name: String) in try Data(contentsOf: URL(fileURLWithPath: directory.file(name))) }
            #expect(try bytes("streamed.png") == bytes("ordinary.png"), "\(pipeline)")
        }
    }

    /// Every picture's tiles on disk (a threshold of one byte), in a folder of the test's own:
    /// after a run that succeeds, one whose input is damaged, and ones stopped by SIGTERM and
    /// SIGINT while the tiles are in their file, the folder is empty and nothing is written.
    @Test func theTemporaryTileFileIsGoneWhateverHappens() throws {
        let directory = try TemporaryDirectory(), temporary = try TemporaryDirectory()
        let environment = ["TMPDIR": temporary.path, "IMAGEPIPE_DISC_THRESHOLD": "1"]
        let leftovers = { try FileManager.default.contentsOfDirectory(atPath: temporary.path) }
        let photo = try StreamedRunCommandTests.photo(1200, 900)
        _ = try directory.write(photo, to: "in.jpg")
        let done = try CommandRunner.run(["run", "-e", "rotate 90", "in.jpg", "-o", "out.png"], in: directory.path, environment: environment)
        #expect(done.status == 0, "\(done.standardError)")
        #expect(try Image.load(path: directory.file("out.png")).size == Size(900, 1200))
        #expect(try leftovers().isEmpty)

        _ = try directory.write(Array(photo.prefix(photo.count * 6 / 10)), to: "cut.jpg")
        let failed = try CommandRunner.run(["run", "-e", "rotate 90", "cut.jpg", "-o", "cut-out.png"], in: directory.path, environment: environment)
        #expect(failed.status != 0 && failed.standardError.contains("cut.jpg"), "\(failed.standardError)")
        #expect(try leftovers().isEmpty)
        #expect(!FileManager.default.fileExists(atPath: directory.file("cut-out.png")))

        _ = try directory.write(StreamedRunCommandTests.photo(4000, 3000), to: "large.jpg")
        for signal in [SIGTERM, SIGINT] {
            // The test runner hands its children SIGTERM blocked or ignored; perl clears both first.
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/perl")
            process.arguments = ["-MPOSIX", "-e", #"sigprocmask(SIG_SETMASK, POSIX::SigSet->new) or die; $SIG{TERM} = $SIG{INT} = "DEFAULT"; exec @ARGV or die"#,
                                 CommandRunner.binary, "run", "-e", "rotate 90 | blur 20", "large.jpg", "-o", "stopped.jpg"]
            process.currentDirectoryURL = URL(fileURLWithPath: directory.path)
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
            process.standardError = FileHandle.nullDevice
            try process.run()
            // Until the process holds its (unlinked) tile file open.
            let deadline = Date().addingTimeInterval(60)
            var holding = false
            while !holding, process.isRunning, Date() < deadline {
                let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(process.processIdentifier)/fd")) ?? []
                holding = descriptors.contains { descriptor in
                    ((try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(process.processIdentifier)/fd/\(descriptor)")) ?? "")
                        .contains("imagepipe-tiles-")
                }
                if !holding { usleep(2_000) }
            }
            #expect(holding, "the run never opened its tile file")
            kill(process.processIdentifier, signal)
            process.waitUntilExit()
            #expect(process.terminationStatus != 0)
            #expect(try leftovers().isEmpty)
            #expect(!FileManager.default.fileExists(atPath: directory.file("stopped.jpg")))
        }
    }
}
