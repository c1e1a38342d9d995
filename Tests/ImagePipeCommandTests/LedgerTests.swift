import Foundation
import Testing
import ImagePipe
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// `--ledger DIR` and `imagepipe report DIR`; a shard stopped or killed halfway and run again.
@Suite struct LedgerTests {
    private func lines(_ path: String) -> [JSONValue] {
        ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").split(separator: "\n").compactMap { JSONValue.parse(String($0)) }
    }

    @Test func eachShardWritesItsOwnLedgerAndTheReportMergesThem() throws {
        let (directory, _) = try ManifestTests.library(10)
        _ = try directory.write("not a picture", to: "library/2023/p9.png") // the 2nd input fails
        for index in [1, 2] { // shard 3 of 3 never runs
            let result = try CommandRunner.run(["run", "-e", "fit 8x8", "--inputs-from", "library/photos.txt", "--shard", "\(index)/3",
                                                "--out-dir", "out", "--ledger", "ledger", "-q"], in: directory.path)
            #expect(result.status == (index == 2 ? 1 : 0), "\(result.standardError)")
        }
        let first = lines(directory.file("ledger/shard-1-of-3.jsonl"))
        #expect(first.count == 6) // start, 4 inputs (positions 1, 4, 7, 10), end
        #expect(first.first?["event"]?.stringValue == "start")
        #expect(first.first?["from"]?.stringValue == "--shard 1/3")
        #expect(first.dropFirst().dropLast().compactMap { $0["index"]?.numberValue }.sorted() == [1, 4, 7, 10])
        #expect(first.last?.text.hasPrefix(#"{"event":"end","shard":1,"shards":3,"total":10,"done":4,"failed":0,"stopped":false,"seconds":"#) == true)
        let record = first.first { $0["index"]?.numberValue == 1 }!
        #expect(record["input"]?.stringValue == "library/2024/may/p10.png")
        #expect(record["outputs"]?.text == #"["out/2024/may/p10.png"]"#)
        let size = try FileManager.default.attributesOfItem(atPath: directory.file("out/2024/may/p10.png"))[.size] as? Int
        #expect(record["bytes"]?.text == "[\(size!)]")
        #expect(record["inputSize"]?.text == "[20,16]" && record["outputSize"]?.text == "[8,6]")

        let report = try CommandRunner.run(["report", "ledger"], in: directory.path)
        #expect(report.status == 1)
        let text = report.standardOutput
        #expect(text.hasPrefix("3 shards, 10 inputs: 6 done, 1 failed, 3 missing\n"), "\(text)")
        #expect(text.contains("shards with no ledger (never ran?): 3\n"))
        #expect(text.contains("failed:\n  library/2023/p9.png: "))
        #expect(text.contains("missing (in no ledger):\n  input #3 (shard 3 of 3)\n  input #6 (shard 3 of 3)\n  input #9 (shard 3 of 3)\n"))
        // With the list, missing inputs are named.
        let named = try CommandRunner.run(["report", "ledger", "--inputs-from", "library/photos.txt", "--json"], in: directory.path)
        let object = JSONValue.parse(named.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(object?["missingInputs"]?.arrayValue?.compactMap { $0["input"]?.stringValue } == ["library/2024/may/p8.png", "library/2023/p5.png", "library/2024/may/p2.png"])
        #expect(object?["failed"]?.numberValue == 1 && object?["done"]?.numberValue == 6)

        // Fix the bad picture, run shard 2 again and shard 3: the last record of each input counts.
        _ = try directory.write(Synthetic.gradient(9, 9).encoded(as: .png), to: "library/2023/p9.png")
        for index in [2, 3] {
            let result = try CommandRunner.run(["run", "-e", "fit 8x8", "--inputs-from", "library/photos.txt", "--shard", "\(index)/3",
                                                "--out-dir", "out", "--ledger", "ledger", "--skip-existing", "-q"], in: directory.path)
            #expect(result.status == 0, "\(result.standardError)")
        }
        let done = try CommandRunner.run(["report", "ledger"], in: directory.path)
        #expect(done.status == 0, "\(done.standardOutput)")
        #expect(done.standardOutput.hasPrefix("3 shards, 10 inputs: 10 done (2 skipped, done before), 0 failed, 0 missing\n"), "\(done.standardOutput)")
    }

    @Test func reportRefusesMixedSplitsAndFindsSharedOutputsAndTornLines() throws {
        let directory = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: directory.file("mixed"), withIntermediateDirectories: true)
        _ = try directory.write("", to: "mixed/shard-1-of-2.jsonl")
        _ = try directory.write("", to: "mixed/shard-1-of-4.jsonl")
        let mixed = try CommandRunner.run(["report", "mixed"], in: directory.path)
        #expect(mixed.status == 2)
        #expect(mixed.standardError == "imagepipe: 'mixed' holds ledgers of 2 and 4 shards: runs split differently share it; give each split its own --ledger directory\n")
        let empty = try CommandRunner.run(["report", "."], in: directory.path)
        #expect(empty.standardError == "imagepipe: no ledgers (shard-K-of-N.jsonl) in '.'\n")

        try FileManager.default.createDirectory(atPath: directory.file("shared"), withIntermediateDirectories: true)
        _ = try directory.write("""
            {"event":"start","shard":1,"shards":1,"total":2}
            {"index":1,"input":"a/x.jpg","outputs":["out/x.png"],"bytes":[10],"seconds":0.5,"skipped":false,"error":null}
            {"index":2,"input":"b/x.jpg","outputs":["out/x.png"],"bytes":[12],"seconds":0.25,"skipped":false,"error":null}
            {"event":"end","shard":1,"shards":1,"total":2,"done":2,"failed":0,"stopped":false,"seconds":1}
            {"index":2,"input":"b/x.j
            """, to: "shared/shard-1-of-1.jsonl")
        let shared = try CommandRunner.run(["report", "shared"], in: directory.path)
        #expect(shared.status == 1)
        #expect(shared.standardOutput == """
            1 shard, 2 inputs: 2 done, 0 failed, 0 missing
            written: 0.0 kB in 0.8 s of work
            outputs written by more than one input:
              out/x.png: a/x.jpg, b/x.jpg
            unreadable ledger lines (a run killed while writing?):
              shard-1-of-1.jsonl:5

            """)
    }

    /// The same batch three ways: uninterrupted; stopped by SIGTERM then resumed; killed by
    /// SIGKILL then resumed. The outputs must be the same files with the same bytes.
    @Test(arguments: [SIGTERM, SIGKILL])
    func aShardStoppedHalfwayAndRunAgainEndsTheSame(signal: Int32) throws {
        let directory = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: directory.file("in"), withIntermediateDirectories: true)
        var names: [String] = []
        for number in 0..<40 {
            _ = try directory.write(Synthetic.gradient(300 + number, 240).encoded(as: .png), to: "in/p\(number).png")
            names.append("p\(number).png")
        }
        _ = try directory.write(names.joined(separator: "\n"), to: "in/list.txt")
        func arguments(_ out: String) -> [String] {
            ["run", "-e", "circle-crop size=200", "--inputs-from", "in/list.txt", "--shard", "2/2", "--out-dir", out,
             "--ledger", out + "-ledger", "--skip-existing", "--jobs", "2", "-q"]
        }
        let whole = try CommandRunner.run(arguments("whole"), in: directory.path)
        #expect(whole.status == 0, "\(whole.standardError)")
        #expect(ManifestTests.files(under: directory.file("whole")).count == 20)

        let process = Process()
        process.executableURL = URL(fileURLWithPath: CommandRunner.binary)
        process.arguments = arguments("resumed")
        process.currentDirectoryURL = URL(fileURLWithPath: directory.path)
        process.standardError = FileHandle.nullDevice
        try process.run()
        let ledger = directory.file("resumed-ledger/shard-2-of-2.jsonl")
        let deadline = Date().addingTimeInterval(60)
        while lines(ledger).count < 4, process.isRunning, Date() < deadline { usleep(5_000) }
        kill(process.processIdentifier, signal)
        process.waitUntilExit()
        let partial = lines(ledger)
        let recorded = partial.filter { $0["index"] != nil }.count
        #expect(recorded >= 3 && recorded < 20, "stopped halfway: \(recorded) of 20 recorded")
        if signal == SIGTERM {
            #expect(process.terminationStatus == 128 + SIGTERM)
            #expect(partial.last?["event"]?.stringValue == "end" && partial.last?["stopped"]?.boolValue == true)
            #expect(ManifestTests.files(under: directory.file("resumed"), hidden: true).allSatisfy { !$0.contains(".imagepipe-") },
                    "SIGTERM: the pictures in progress are given up, no temporary file is left")
        } else {
            #expect(process.terminationReason == .uncaughtSignal)
        }
        // Whatever is under an output name is whole: the ledger's done inputs equal the whole run's.
        // An input's line is written after its output is renamed into place, so a kill can fall
        // between the two: an output may exist with no line (never a line without its output). The
        // run again skips every input whose output exists, so the skipped count is the outputs
        // present now, not the lines recorded; counting lines failed when the kill split the pair.
        let present = ManifestTests.files(under: directory.file("resumed")).count
        #expect(recorded <= present && present <= recorded + 2, "\(recorded) recorded, \(present) outputs (at most --jobs 2 land unrecorded)")
        for name in ManifestTests.files(under: directory.file("resumed")) {
            #expect(ManifestTests.bytes(directory.file("resumed/" + name)) == ManifestTests.bytes(directory.file("whole/" + name)), "\(name)")
        }
        let again = try CommandRunner.run(arguments("resumed"), in: directory.path)
        #expect(again.status == 0, "\(again.standardError)")
        #expect(ManifestTests.files(under: directory.file("resumed")) == ManifestTests.files(under: directory.file("whole")))
        for name in ManifestTests.files(under: directory.file("whole")) {
            #expect(ManifestTests.bytes(directory.file("resumed/" + name)) == ManifestTests.bytes(directory.file("whole/" + name)), "\(name)")
        }
        let report = try CommandRunner.run(["report", "resumed-ledger"], in: directory.path)
        #expect(report.standardOutput.contains("20 done (\(present) skipped, done before), 0 failed"), "\(report.standardOutput)")
    }

    /// A ledger line is what `--json` says of the input, with its place and its outputs' sizes.
    @Test func aLedgerLineIsTheJSONLineWithItsIndexAndBytes() throws {
        let directory = try TemporaryDirectory()
        for name in ["a", "b"] { _ = try directory.write(Synthetic.gradient(20, 16).encoded(as: .png), to: "\(name).png") }
        _ = try directory.write("not a picture", to: "c.png")
        let result = try CommandRunner.run(["run", "-e", "fit 8x8", "a.png", "b.png", "c.png", "--out-dir", "out", "--ledger", "ledger",
                                            "--json", "-q"], in: directory.path)
        #expect(result.status == 1, "\(result.standardError)")
        let printed = result.standardOutput.split(separator: "\n").compactMap { JSONValue.parse(String($0)) }
        let recorded = lines(directory.file("ledger/shard-1-of-1.jsonl")).filter { $0["index"] != nil }
        #expect(printed.count == 3 && recorded.count == 3)
        for record in recorded {
            #expect(record.objectKeys == ["index", "input", "outputs", "bytes", "inputSize", "outputSize", "seconds", "error", "skipped"])
            let line = try #require(printed.first { $0["input"] == record["input"] })
            for key in line.objectKeys ?? [] where key != "notes" { #expect(record[key] == line[key], "\(key)") }
        }
        #expect(recorded.first { $0["input"]?.stringValue == "c.png" }?["error"]?.stringValue?.isEmpty == false)
    }

    /// `--skip-existing` beside `--ledger` resumes by the ledger, through `Batch.resume`: an input
    /// it records as done is passed over though its output was moved away, one it records as
    /// failed is made again.
    @Test func skipExistingGoesByTheLedger() throws {
        let directory = try TemporaryDirectory()
        for name in ["a", "b"] { _ = try directory.write(Synthetic.gradient(20, 16).encoded(as: .png), to: "\(name).png") }
        _ = try directory.write("not a picture", to: "c.png")
        let arguments = ["run", "-e", "fit 8x8", "a.png", "b.png", "c.png", "--out-dir", "out", "--ledger", "ledger", "--skip-existing", "--json", "-q"]
        let first = try CommandRunner.run(arguments, in: directory.path)
        #expect(first.status == 1, "\(first.standardError)")
        try FileManager.default.moveItem(atPath: directory.file("out/a.png"), toPath: directory.file("a-elsewhere.png"))
        _ = try directory.write(Synthetic.gradient(20, 16).encoded(as: .png), to: "c.png")
        let again = try CommandRunner.run(arguments, in: directory.path)
        #expect(again.status == 0, "\(again.standardError)")
        let printed = again.standardOutput.split(separator: "\n").compactMap { JSONValue.parse(String($0)) }
        let skipped = Dictionary(uniqueKeysWithValues: printed.compactMap { line in line["input"]?.stringValue.map { ($0, line["skipped"]?.boolValue) } })
        #expect(skipped == ["a.png": true, "b.png": true, "c.png": false], "\(again.standardOutput)")
        #expect(!FileManager.default.fileExists(atPath: directory.file("out/a.png")) && FileManager.default.fileExists(atPath: directory.file("out/c.png")))
    }

    @Test func aLedgerThatCannotBeADirectoryIsRefused() throws {
        let directory = try TemporaryDirectory()
        _ = try directory.write(Synthetic.gradient(20, 16).encoded(as: .png), to: "a.png")
        _ = try directory.write("a file", to: "taken")
        let onFile = try CommandRunner.run(["run", "-e", "fit 8x8", "a.png", "-o", "out.png", "--ledger", "taken", "-q"], in: directory.path)
        #expect(onFile.status != 0 && onFile.standardError == "imagepipe: the ledger 'taken' is not a directory\n", "\(onFile.standardError)")
        let under = try CommandRunner.run(["run", "-e", "fit 8x8", "a.png", "-o", "out.png", "--ledger", "taken/ledger", "-q"], in: directory.path)
        #expect(under.status != 0 && under.standardError == "imagepipe: cannot write the ledger 'taken/ledger': cannot make directory './taken/ledger': Not a directory\n",
                "\(under.standardError)")
    }
}
