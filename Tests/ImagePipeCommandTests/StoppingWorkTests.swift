import Foundation
import ImagePipe
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Work that would never end, or hold its thread past its limit: a progressive JPEG of
/// hundreds of scans, a FIFO whose writer stalls, folders with devices, loops and names that
/// are not text, option values past what the clock can count, and SIGTERM during all that.
/// Each test bounds its own wait and kills what is left, so a hang fails rather than stalls.
@Suite struct StoppingWorkTests {
    /// A writer of `fifo` that never writes, there before the command starts: the command opens
    /// a FIFO without waiting for a writer (one nobody writes to is an empty file), so a writer
    /// started as a process of its own could come too late. Opened for reading and writing, the
    /// FIFO needs no reader to open.
    static func stalledWriter(of fifo: String) -> Int32 {
        open(fifo, O_RDWR | O_CLOEXEC)
    }

    /// A progressive JPEG with its last scan repeated until it has more than 600 scans.
    static func scanBomb() throws -> [UInt8] {
        let progressive = try Synthetic.gradient(64, 48).encoded(as: .jpeg, options: SaveOptions(progressive: true))
        var lastScan = progressive.count - 2
        while lastScan > 0, !(progressive[lastScan] == 0xFF && progressive[lastScan + 1] == 0xDA) { lastScan -= 1 }
        let scan = progressive[lastScan..<(progressive.count - 2)]
        return Array(progressive[..<lastScan]) + Array(repeating: scan, count: 600).flatMap { $0 } + [0xFF, 0xD9]
    }

    @Test func aJPEGOfHundredsOfScansIsRefused() throws {
        let directory = try TemporaryDirectory()
        let bomb = try directory.write(Self.scanBomb(), to: "scans.jpg")
        // Taken as damage by default; with fail=false the decode goes on until the scan limit.
        let tolerant = try CommandRunner.run(["run", "-e", "load fail=false | grayscale", bomb, "-o", directory.file("out.png")])
        #expect(tolerant.status != 0 && tolerant.standardError.contains("more than 500 scans"), "\(tolerant.standardError)")
        #expect(!FileManager.default.fileExists(atPath: directory.file("out.png")))
        // The same picture with its ten scans decodes, with fail=false too.
        let plain = try directory.write(Synthetic.gradient(64, 48).encoded(as: .jpeg, options: SaveOptions(progressive: true)), to: "plain.jpg")
        let fine = try CommandRunner.run(["run", "-e", "load fail=false | grayscale", plain, "-o", directory.file("out.png")])
        #expect(fine.status == 0, "\(fine.standardError)")
    }

    /// libjpeg's own loop checks the deadline: a decode whose time is up stops inside it (the
    /// header already read, as a batch has it from its memory estimate).
    @Test func aJPEGDecodeStopsAtItsDeadline() throws {
        let directory = try TemporaryDirectory()
        let path = try directory.write(Synthetic.gradient(300, 200).encoded(as: .jpeg), to: "photo.jpg")
        let header = try ImageHeader.read(path: path)
        #expect(throws: ImageError.self) {
            do {
                _ = try Image.load(path: path, options: LoadOptions(deadline: .now - .seconds(1)), header: header)
            } catch let error as ImageError {
                #expect(error.kind == .timedOut, "\(error)")
                throw error
            }
        }
        _ = try Image.load(path: path, options: LoadOptions(deadline: .now + .seconds(60)), header: header)
    }

    /// A picture past its time limit is stopped inside its stages' row loops, and the worker's
    /// next picture starts once it has let go: no run is left behind (the command says when one
    /// is: work inside a library that checks nothing, such as libavif's encoder). Abandoned to
    /// run on, as they were, four timed-out pictures held four pictures' memory at once.
    @Test func picturesPastTheirLimitLetGoBeforeTheNextStarts() throws {
        let directory = try TemporaryDirectory()
        let slow = try Synthetic.gradient(5000, 5000).encoded(as: .png)
        for name in ["a", "b", "c", "d"] { _ = try directory.write(slow, to: "\(name).png") }
        _ = try directory.write(Synthetic.gradient(8, 8).encoded(as: .png), to: "good.png")
        // One blur of 25 megapixels at σ 100 takes some 5 s of a core: checked only between
        // stages, each picture would still be in its first blur when the grace of 2 s is over.
        let work = Array(repeating: "blur 100", count: 5).joined(separator: " | ")
        let result = try CommandRunner.run(["run", "-e", work, "a.png", "b.png", "c.png", "d.png", "good.png",
                                            "--out-dir", "out", "-o", "{stem}.png", "--timeout", "0.5", "--jobs", "1"], in: directory.path)
        #expect(result.status == 1)
        #expect(result.standardError.components(separatedBy: "timed out: took more than 0.5 s").count - 1 == 4, "\(result.standardError)")
        #expect(!result.standardError.contains("still working"), "\(result.standardError)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.file("out")) == ["good.png"])
        // libavif's encoder cannot be stopped: that run is left to end on its own, and said to be
        // (700x700 of noise at speed 0 takes it some 10 s).
        var random = SeededGenerator(seed: 3)
        let noise = try Synthetic.image(700, 700) { _, _ in
            Color(red: .random(in: 0...255, using: &random), green: .random(in: 0...255, using: &random), blue: .random(in: 0...255, using: &random))
        }
        _ = try directory.write(noise.encoded(as: .png), to: "noise.png")
        let avif = try CommandRunner.run(["run", "-e", "save speed=0", "noise.png", "good.png", "--out-dir", "avif", "-o", "{stem}.avif",
                                          "--timeout", "1", "--jobs", "1"], in: directory.path)
        #expect(avif.standardError.contains("noise.png: still working 2 s after its time limit, inside a library that cannot be stopped"),
                "\(avif.standardError)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.file("avif")) == ["good.avif"])
    }

    /// Starts `imagepipe arguments…`; the caller waits with `finish`.
    static func start(_ arguments: [String], in directory: String) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CommandRunner.binary)
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }

    /// Waits for `process` at most `seconds`; kills it and says so when it is still running.
    static func finished(_ process: Process, within seconds: Double) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while process.isRunning, Date() < deadline { usleep(20_000) }
        guard process.isRunning else { return true }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        return false
    }

    /// A FIFO whose writer holds it open and sends nothing: the picture fails at its time limit,
    /// and one that nobody writes to at all is an empty file at once (no wait for a writer).
    @Test func aStalledFIFOFailsAtTheTimeLimit() throws {
        let directory = try TemporaryDirectory()
        let fifo = directory.file("stalled.png")
        #expect(mkfifo(fifo, 0o600) == 0)
        let unwritten = try CommandRunner.run(["info", fifo])
        #expect(unwritten.status != 0 && unwritten.standardError.contains("empty"), "\(unwritten.standardError)")

        let writer = Self.stalledWriter(of: fifo)
        #expect(writer >= 0)
        defer { close(writer) }
        let run = try Self.start(["run", "-e", "grayscale", fifo, "-o", directory.file("out.png"), "--timeout", "1"], in: directory.path)
        #expect(Self.finished(run, within: 20), "the run waited on the FIFO past its --timeout")
        #expect(run.terminationStatus == 1)
        #expect(!FileManager.default.fileExists(atPath: directory.file("out.png")))
    }

    /// However a stalled FIFO comes in (an input named in a list, `load PATH`, a `composite`
    /// overlay, `info`, `explain`), its reading ends at the time limit with that picture's
    /// failure, and the command ends. (Each waited for ever.)
    @Test(arguments: ["list", "load", "overlay", "info", "explain"])
    func aStalledFIFOEndsAtTheLimitHoweverItComesIn(way: String) throws {
        let directory = try TemporaryDirectory()
        let fifo = directory.file("stalled.png")
        #expect(mkfifo(fifo, 0o600) == 0)
        _ = try directory.write(Synthetic.gradient(40, 30).encoded(as: .png), to: "good.png")
        _ = try directory.write("stalled.png\n", to: "list.txt")
        let writer = Self.stalledWriter(of: fifo)
        #expect(writer >= 0)
        defer { close(writer) }
        let arguments: [String] = switch way {
        case "list": ["run", "-e", "grayscale", "--inputs-from", "list.txt", "--out-dir", "out"]
        case "load": ["run", "-e", "load stalled.png | grayscale | save out.png"]
        case "overlay": ["run", "-e", "composite stalled.png", "good.png", "-o", "out.png"]
        case "info": ["info", "stalled.png"]
        default: ["explain", "-e", "grayscale", "stalled.png"]
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CommandRunner.binary)
        process.arguments = arguments + ["--timeout", "1"]
        process.currentDirectoryURL = URL(fileURLWithPath: directory.path)
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        #expect(Self.finished(process, within: 30), "\(way): it waited on the FIFO past its --timeout")
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(process.terminationStatus == 1, "\(way): \(message)")
        // The picture that fails is named: an overlay's wait ends either as the overlay's own
        // read at the limit or as the picture it was to go on, whichever reports first.
        let named = way == "overlay" ? ["good.png", "stalled.png"] : ["stalled.png"]
        #expect(named.contains { message.contains("\($0): timed out") }, "\(way): \(message)")
        #expect(!FileManager.default.fileExists(atPath: directory.file("out.png")))
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: directory.file("out"))) ?? []).isEmpty)
    }

    /// SIGTERM stops a batch whose picture in progress waits on a FIFO with no time limit: the
    /// pictures in progress are given up and the process ends.
    @Test func sigtermStopsABatchWaitingOnAFIFO() throws {
        let directory = try TemporaryDirectory()
        let fifo = directory.file("stalled.png")
        #expect(mkfifo(fifo, 0o600) == 0)
        let good = try directory.write(Synthetic.gradient(40, 30).encoded(as: .png), to: "good.png")
        let writer = Self.stalledWriter(of: fifo)
        #expect(writer >= 0)
        defer { close(writer) }
        let run = try Self.start(["run", "-e", "grayscale", good, fifo, "--out-dir", "out", "--timeout", "0", "--jobs", "1",
                                  "--ledger", "ledger"], in: directory.path)
        // The first picture done (its ledger line is there): the second one is waiting on the FIFO.
        let ledger = directory.file("ledger/shard-1-of-1.jsonl")
        let deadline = Date().addingTimeInterval(20)
        while ((try? String(contentsOfFile: ledger, encoding: .utf8)) ?? "").split(separator: "\n").count < 2, run.isRunning,
              Date() < deadline { usleep(20_000) }
        kill(run.processIdentifier, SIGTERM)
        #expect(Self.finished(run, within: 10), "SIGTERM did not stop the batch")
        #expect(run.terminationStatus == 128 + SIGTERM)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.file("out")) == ["good.png"])
    }

    /// A file named with bytes that are not UTF-8, written through the kernel's byte interface.
    static func writeFile(named bytes: [UInt8], in directory: String, contents: [UInt8]) {
        let path = Array(directory.utf8) + [UInt8(ascii: "/")] + bytes + [0]
        let descriptor = path.withUnsafeBufferPointer { $0.withMemoryRebound(to: CChar.self) { open($0.baseAddress!, O_CREAT | O_WRONLY, 0o644) } }
        _ = contents.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        close(descriptor)
    }

    /// A folder batch takes its regular files only, enters a directory once however many links
    /// lead to it, and reports a name that is not text instead of dropping it without a word;
    /// a name holding U+FFFD (what a mended name would become) is a picture like any other.
    @Test func aFolderOfOddEntriesEndsAndSaysWhatItPassedOver() throws {
        let directory = try TemporaryDirectory()
        let folder = directory.file("in")
        try FileManager.default.createDirectory(atPath: folder + "/sub", withIntermediateDirectories: true)
        let png = try Synthetic.gradient(20, 10).encoded(as: .png)
        _ = try directory.write(png, to: "in/a.png")
        _ = try directory.write(png, to: "in/sub/c.png")
        _ = try directory.write(png, to: "in/b\u{FFFD}.png")
        Self.writeFile(named: Array("b".utf8) + [0xFF] + Array(".png".utf8), in: folder, contents: png)
        #expect(mkfifo(folder + "/fifo.png", 0o600) == 0)
        try FileManager.default.createSymbolicLink(atPath: folder + "/sub/loop", withDestinationPath: "..")
        try FileManager.default.createSymbolicLink(atPath: folder + "/again", withDestinationPath: "sub")

        let run = try Self.start(["run", "-r", "-e", "grayscale", "in", "--out-dir", "out"], in: directory.path)
        #expect(Self.finished(run, within: 30), "the batch did not end")
        let result = try CommandRunner.run(["run", "-r", "-e", "grayscale", "in", "--out-dir", "out2"], in: directory.path)
        #expect(result.status == 1, "a picture that could not be taken fails the run: \(result.standardError)")
        #expect(result.standardError.contains("'in/b\\xFF.png': passed over: the name is not UTF-8 text"), "\(result.standardError)")
        #expect(result.standardError.contains("'in/fifo.png': passed over: is a FIFO"), "\(result.standardError)")
        let made = Set(ManifestTests.files(under: directory.file("out2")))
        // `again` sorts before `sub`: the directory is entered through it, and once only.
        #expect(made == ["a.png", "b\u{FFFD}.png", "again/c.png"], "\(made.sorted())")
    }

    @Test(arguments: [(["--timeout", "1e16"], "--timeout needs a number of seconds from 0 to 86400"),
                      (["--timeout", "nan"], "--timeout needs a number of seconds from 0 to 86400"),
                      (["--jobs", "9223372036854775807"], "--jobs needs a whole number from 1 to"),
                      (["--jobs", "0"], "--jobs needs a whole number from 1 to")])
    func optionValuesPastTheirRangeAreRefused(options: [String], message: String) throws {
        let directory = try TemporaryDirectory()
        let input = try directory.write(Synthetic.gradient(8, 8).encoded(as: .png), to: "in.png")
        let result = try CommandRunner.run(["run", "-e", "grayscale", input, "-o", directory.file("out.png")] + options)
        #expect(result.status == 2 && result.standardError.contains(message), "\(result.standardError)")
    }
}
