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
            let ordinary = try CommandRunner.run(["run", "-e", pipeline, "in.jpg", "-o", "ordinary.png"], in: directory.path, environment: CommandRunner.wholePictures)
            #expect(streamed.status == 0 && ordinary.status == 0, "\(streamed.standardError)\(ordinary.standardError)")
            let bytes = { (name: String) in try Data(contentsOf: URL(fileURLWithPath: directory.file(name))) }
            #expect(try bytes("streamed.png") == bytes("ordinary.png"), "\(pipeline)")
        }
    }

    /// A turn by any angle streams through the tile cache too, each output tile made from the
    /// input pixels under it: the ordinary run's bytes, with the tiles in memory and on disk,
    /// RGB on an opaque background, RGBA on a transparent one (flattened for JPEG).
    @Test func turnsByAnyAngleStreamToTheOrdinaryBytes() throws {
        let directory = try TemporaryDirectory()
        _ = try directory.write(StreamedRunCommandTests.photo(611, 403), to: "in.jpg")
        for (pipeline, output) in [("rotate angle=30 background=black", "png"), ("rotate angle=-12.5 anchor=0.2,0.8 canvas=expand background=#336699", "tif"),
                                   ("blur 1 | rotate angle=200 background=white | sharpen", "jpg"), ("rotate angle=7", "png"),
                                   ("rotate angle=45 canvas=expand | resize 50%", "png"), ("rotate pan=90", "jpg"),
                                   ("crop 0,0,300x1 | rotate angle=89", "png")] {
            let plan = try CommandRunner.run(["explain", "-e", pipeline, "in.jpg", "-o", "out.\(output)"], in: directory.path)
            #expect(plan.standardOutput.contains("turning stage"), "\(pipeline): \(plan.standardOutput)")
            for threshold in ["", "1"] {
                try StreamedRunCommandTests.expectStreamsToTheOrdinaryBytes(pipeline, "in.jpg", output: output, in: directory,
                                                                            environment: ["IMAGEPIPE_DISC_THRESHOLD": threshold])
            }
        }
        // The corners of the transparent canvas are transparent, the middle the picture.
        _ = try CommandRunner.run(["run", "-e", "rotate angle=30 canvas=expand", "in.jpg", "-o", "turned.png"], in: directory.path)
        let turned = try Image.load(path: directory.file("turned.png"))
        #expect(turned.hasAlpha && turned.pixel(x: 0, y: 0).alpha == 0 && turned.pixel(x: turned.width / 2, y: turned.height / 2).alpha == 255)
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
                                 CommandRunner.binary, "run", "-e", "rotate 90 | blur 20 | blur 20 | blur 20", "large.jpg", "-o", "stopped.jpg"]
            process.currentDirectoryURL = URL(fileURLWithPath: directory.path)
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
            process.standardError = FileHandle.nullDevice
            try process.run()
            // Until the process holds its (unlinked) tile file open. The blurs after the turn keep
            // it at work well past that moment, on a loaded machine too (with one blur, a run
            // beside 700 other tests sometimes finished before the signal came).
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

    /// A tile file that cannot be made (TMPDIR missing, or a folder without write permission)
    /// is an error naming the folder and the reason, with nothing left in the output's folder:
    /// the cache's buffers were once freed twice there (SIGABRT) and a hidden output stayed.
    @Test func aTileFileThatCannotBeMadeIsAClearError() throws {
        let directory = try TemporaryDirectory(), readOnly = try TemporaryDirectory()
        _ = try directory.write(StreamedRunCommandTests.photo(300, 200), to: "in.jpg")
        #expect(chmod(readOnly.path, 0o500) == 0)
        defer { chmod(readOnly.path, 0o700) }
        // Root writes into any folder: the missing folder alone is tried then.
        let folders = [directory.file("missing")] + (getuid() == 0 ? [] : [readOnly.path])
        for folder in folders {
            let run = try CommandRunner.run(["run", "-e", "rotate 90", "in.jpg", "-o", "out.png"], in: directory.path,
                                            environment: ["TMPDIR": folder, "IMAGEPIPE_DISC_THRESHOLD": "1"])
            #expect(run.status == 1, "\(run.standardError)")
            #expect(run.standardError.contains(folder) && run.standardError.contains("cannot make the temporary file for the tiles"),
                    "\(run.standardError)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["in.jpg"])
        }
    }

    /// A narrow picture turned is one long row: the PNG encoder's filtered copies of it (the
    /// row above, five candidates, the strip) are most of the run's memory, and the estimate
    /// that --max-memory reserves counts them (a 1x179M picture estimated 1.5G peaked at 4 GiB).
    @Test func aTurnedNarrowPictureCountsThePNGEncodersRows() throws {
        let directory = try TemporaryDirectory()
        _ = try directory.write(Synthetic.gradient(1, 2_000_000).encoded(as: .png), to: "narrow.png")
        let explain = try CommandRunner.run(["explain", "--json", "-e", "rotate 90", "narrow.png", "-o", "out.png"], in: directory.path)
        #expect(explain.status == 0, "\(explain.standardError)")
        let json = try #require(JSONSerialization.jsonObject(with: Data(explain.standardOutput.utf8)) as? [String: Any])
        let estimate = try #require(json["estimatedPeakBytes"] as? Int)
        let row = 2_000_000 * 3
        #expect(json["streams"] as? Bool == true)
        // The encoder's seven rows and the turn's two strips, beside the run's constant.
        #expect(estimate >= Plan.workingBytes + 9 * row, "\(estimate)")
    }

    /// The turns of one run share the disc threshold: the first whose tiles fit keeps them in
    /// memory, the rest spill (twenty `rotate 90`s of a 20-megapixel photo each kept theirs,
    /// 1.5 GB in all against the whole-picture run's 240 MB). The estimate says the same, and
    /// the picture is the one the turns make (a quarter turn in all).
    @Test func turnsInOneRunShareTheDiscThreshold() throws {
        let directory = try TemporaryDirectory()
        _ = try directory.write(StreamedRunCommandTests.photo(2000, 1600), to: "in.jpg")
        func estimate(_ pipeline: String) throws -> Int {
            let explain = try CommandRunner.run(["explain", "--json", "-e", pipeline, "in.jpg", "-o", "out.png"], in: directory.path,
                                                environment: ["IMAGEPIPE_DISC_THRESHOLD": "12M"])
            let json = try #require(JSONSerialization.jsonObject(with: Data(explain.standardOutput.utf8)) as? [String: Any])
            #expect(json["streams"] as? Bool == true)
            return try #require(json["estimatedPeakBytes"] as? Int)
        }
        let tiles = 2000 * 1600 * 3
        let one = try estimate("rotate 90"), four = try estimate("rotate 90 | rotate 90 | rotate 90 | rotate 90")
        #expect(four - one < 2 * tiles, "one turn \(one), four \(four)")
        let run = try CommandRunner.run(["run", "-e", "rotate 90 | rotate 90 | rotate 90 | rotate 180", "in.jpg", "-o", "out.png"], in: directory.path,
                                        environment: ["IMAGEPIPE_DISC_THRESHOLD": "12M"])
        #expect(run.status == 0, "\(run.standardError)")
        let reference = try CommandRunner.run(["run", "-e", "rotate 90", "in.jpg", "-o", "ref.png"], in: directory.path)
        #expect(reference.status == 0)
        #expect(try Data(contentsOf: URL(fileURLWithPath: directory.file("out.png"))) == Data(contentsOf: URL(fileURLWithPath: directory.file("ref.png"))))
    }
}
