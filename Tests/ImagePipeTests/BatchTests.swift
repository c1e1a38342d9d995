import Foundation
import ImagePipe
import Testing
import TestSupport

/// `Batch` as an embedder uses it: small pictures in a temporary folder, one of them corrupt.
@Suite struct BatchTests {
    /// a.png (left red, right blue), b.png (green), c.png (not a picture), and a batch halving
    /// them into out/ with two jobs.
    private func threeInputs(in directory: TemporaryDirectory) throws -> Batch {
        try Synthetic.halves(8, 4).save(to: directory.file("a.png"))
        try Image.filled(Color(red: 0, green: 200, blue: 0), size: Size(6, 6)).save(to: directory.file("b.png"))
        _ = try directory.write(Array("not a picture at all".utf8), to: "c.png")
        var batch = Batch(pipeline: Pipeline(transforms: [TestHalf()]), inputs: ["a", "b", "c"].map { directory.file("\($0).png") },
                          outputDirectory: directory.file("out"))
        batch.jobs = 2
        return batch
    }

    @Test func oneCorruptInputFailsAloneAndTheOthersAreWritten() throws {
        let directory = try TemporaryDirectory()
        var batch = try threeInputs(in: directory)
        let events = Locked<[String]>([])
        batch.progress = { event in
            switch event {
            case let .started(input): events.withLock { $0.append("started \(PathBytes.lastComponent(input))") }
            case let .finished(outcome): events.withLock { $0.append("finished \(PathBytes.lastComponent(outcome.input))") }
            }
        }
        let result = try batch.run()
        #expect((result.written, result.failed, result.skipped, result.cancelled) == (2, 1, 0, false))
        #expect(result.outcomes.map { PathBytes.lastComponent($0.input) } == ["a.png", "b.png", "c.png"])
        #expect(result.outcomes[0].outputs.map(PathBytes.lastComponent) == ["a.png"] && result.outcomes[0].outputSize == Size(4, 2))
        let failure = try #require(result.outcomes[2].error)
        #expect(failure.contains("c.png"), "\(failure)")
        #expect(result.outcomes[2].outputs.isEmpty)
        let a = try Image.load(path: directory.file("out/a.png"))
        #expect(a.size == Size(4, 2))
        #expect(Synthetic.close(a.pixel(x: 0, y: 0), Color(red: 255, green: 0, blue: 0), tolerance: 8), "\(a.pixel(x: 0, y: 0))")
        #expect(Synthetic.close(a.pixel(x: 3, y: 1), Color(red: 0, green: 0, blue: 255), tolerance: 8), "\(a.pixel(x: 3, y: 1))")
        let b = try Image.load(path: directory.file("out/b.png"))
        #expect(b.size == Size(3, 3) && Synthetic.close(b.pixel(x: 1, y: 1), Color(red: 0, green: 200, blue: 0), tolerance: 2))
        #expect(!FileManager.default.fileExists(atPath: directory.file("out/c.png")))
        let seen = events.withLock { $0 }
        for name in ["a.png", "b.png", "c.png"] {
            #expect(seen.filter { $0 == "started \(name)" }.count == 1 && seen.filter { $0 == "finished \(name)" }.count == 1, "\(seen)")
            #expect(seen.firstIndex(of: "started \(name)")! < seen.firstIndex(of: "finished \(name)")!)
        }
    }

    @Test func resumingWithoutALedgerMakesAgainWhatIsMissing() throws {
        let directory = try TemporaryDirectory()
        var batch = try threeInputs(in: directory)
        try batch.run()
        // b's output lost (a full disk, a clean-up): the resumed batch makes it again, and only it.
        try FileManager.default.removeItem(atPath: directory.file("out/b.png"))
        let made = try FileManager.default.attributesOfItem(atPath: directory.file("out/a.png"))[.modificationDate] as? Date
        batch.resume = true
        let result = try batch.run()
        #expect((result.written, result.failed, result.skipped) == (1, 1, 1))
        #expect(result.outcomes.map(\.skipped) == [true, false, false])
        #expect(try Image.load(path: directory.file("out/b.png")).size == Size(3, 3))
        #expect(try FileManager.default.attributesOfItem(atPath: directory.file("out/a.png"))[.modificationDate] as? Date == made)
    }

    /// Resuming with a ledger goes by what it records, not by what files are there: a done input
    /// whose output was moved away is passed over, a failed one is made again over a file of its
    /// output's name, and a done one whose outputs would now have other names is made again.
    @Test func resumingPassesOverExactlyWhatTheLedgerRecordsAsDone() throws {
        let directory = try TemporaryDirectory()
        var batch = try threeInputs(in: directory)
        batch.ledger = directory.file("ledger")
        let first = try batch.run()
        #expect((first.written, first.failed) == (2, 1))
        try FileManager.default.createDirectory(atPath: directory.file("moved"), withIntermediateDirectories: true)
        try FileManager.default.moveItem(atPath: directory.file("out/a.png"), toPath: directory.file("moved/a.png"))
        try Image.filled(Color(red: 0, green: 0, blue: 200), size: Size(10, 2)).save(to: directory.file("c.png")) // mended
        try Image.filled(Color(red: 9, green: 9, blue: 9), size: Size(1, 1)).save(to: directory.file("out/c.png")) // a stale file
        batch.resume = true
        let resumed = try batch.run()
        #expect(resumed.outcomes.map { PathBytes.lastComponent($0.input) } == ["a.png", "b.png", "c.png"])
        #expect(resumed.outcomes.map(\.skipped) == [true, true, false])
        #expect((resumed.written, resumed.failed, resumed.skipped) == (1, 0, 2))
        #expect(!FileManager.default.fileExists(atPath: directory.file("out/a.png")))
        #expect(try Image.load(path: directory.file("out/c.png")).size == Size(5, 1))
        // The command's ledger: a start and an end line a run, one line an input; the inputs
        // passed over are recorded as such, so the report counts them done.
        let lines = try String(contentsOfFile: directory.file("ledger/shard-1-of-1.jsonl"), encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 10)
        #expect(lines.filter { $0.contains(#""event":"start""#) }.count == 2 && lines.filter { $0.contains(#""event":"end""#) }.count == 2)
        let skipped = lines[5...].filter { $0.contains(#""skipped":true"#) }.map { PathBytes.lastComponent(String(JSONValue.parse(String($0))?["input"]?.stringValue ?? "")) }
        #expect(skipped.sorted() == ["a.png", "b.png"], "\(lines)")
        #expect(lines.last!.contains(#""done":3,"failed":0"#), "\(lines.last!)")
        // Other names for the outputs: what the ledger records is not what this run would write.
        batch.output = "{stem}-2.png"
        let renamed = try batch.run()
        #expect((renamed.written, renamed.failed, renamed.skipped) == (3, 0, 0))
    }

    /// A ledger is read as untrusted when resuming too: a number out of range is refused, naming
    /// the file and line, before any picture is touched.
    @Test func resumingFromALedgerThatIsNotImagepipesIsRefusedBeforeAnyWork() throws {
        let directory = try TemporaryDirectory()
        var batch = try threeInputs(in: directory)
        batch.ledger = directory.file("ledger")
        batch.resume = true
        try FileManager.default.createDirectory(atPath: directory.file("ledger"), withIntermediateDirectories: true)
        _ = try directory.write(#"{"index":1e300,"input":"x.png"}"# + "\n", to: "ledger/shard-1-of-1.jsonl")
        #expect(throws: UsageError(#"shard-1-of-1.jsonl:1: "index" is 1e+300, not a whole number from 1 to 9007199254740992"#)) { try batch.run() }
        #expect(!FileManager.default.fileExists(atPath: directory.file("out")))
    }

    @Test func cancelledBeforeItStartsItWritesNothing() throws {
        let directory = try TemporaryDirectory()
        var batch = try threeInputs(in: directory)
        batch.cancellation.cancel()
        let started = Locked(0)
        batch.progress = { _ in started.withLock { $0 += 1 } }
        let result = try batch.run()
        #expect(result.cancelled && result.outcomes.isEmpty && (result.written, result.failed) == (0, 0))
        #expect(started.withLock { $0 } == 0)
        let out = (try? FileManager.default.contentsOfDirectory(atPath: directory.file("out"))) ?? []
        #expect(out.isEmpty, "\(out)")
        #expect(try directory.contents().sorted() == ["a.png", "b.png", "c.png"])
    }

    @Test func twoInputsWritingOneFileAreRefusedBeforeAnyWork() throws {
        let directory = try TemporaryDirectory()
        var batch = try threeInputs(in: directory)
        batch.output = "same.png"
        #expect(throws: (any Error).self) { try batch.run() }
        #expect(!FileManager.default.fileExists(atPath: directory.file("out/same.png")))
    }
}
