import Foundation
import Testing
import ImagePipe
import PipelineFuzzing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Ledgers as untrusted files: `--ledger` planted with links, names that are shell code or
/// terminal commands, and `imagepipe report` on small crafted ledgers asking for traps, deep
/// recursion or gigabytes.
@Suite struct LedgerHardeningTests {
    static let regressions = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fuzz/ledger-regressions").path

    private func lines(_ path: String) -> [JSONValue] {
        ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").split(separator: "\n").compactMap { JSONValue.parse(String($0)) }
    }

    /// A folder `ledger` holding `shard-1-of-1.jsonl` with `text`, and `imagepipe report ledger` on it.
    private func report(_ text: String, name: String = "shard-1-of-1.jsonl", json: Bool = false) throws -> (TemporaryDirectory, CommandRunner.Result) {
        let directory = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: directory.file("ledger"), withIntermediateDirectories: true)
        _ = try directory.write(text, to: "ledger/" + name)
        return (directory, try CommandRunner.run(["report", "ledger"] + (json ? ["--json"] : []), in: directory.path))
    }

    // MARK: 1. --ledger does not follow links, nor write in a folder others could plant files in

    @Test func aLedgerFileThatIsALinkIsRefusedAndItsTargetUnchanged() throws {
        let directory = try TemporaryDirectory()
        _ = try directory.write(Synthetic.gradient(20, 16).encoded(as: .png), to: "a.png")
        let victim = try directory.write("export PATH=/usr/bin\n", to: "victim.rc")
        try FileManager.default.createDirectory(atPath: directory.file("ledger"), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: directory.file("ledger/shard-1-of-1.jsonl"), withDestinationPath: victim)
        let result = try CommandRunner.run(["run", "-e", "fit 8x8", "a.png", "-o", "out.png", "--ledger", "ledger", "-q"], in: directory.path)
        #expect(result.status == 2)
        #expect(result.standardError == "imagepipe: cannot write the ledger 'ledger/shard-1-of-1.jsonl': it is a symbolic link\n", "\(result.standardError)")
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "export PATH=/usr/bin\n")

        // A hard link is another name of the victim: refused as well.
        try FileManager.default.removeItem(atPath: directory.file("ledger/shard-1-of-1.jsonl"))
        try FileManager.default.linkItem(atPath: victim, toPath: directory.file("ledger/shard-1-of-1.jsonl"))
        let linked = try CommandRunner.run(["run", "-e", "fit 8x8", "a.png", "-o", "out.png", "--ledger", "ledger", "-q"], in: directory.path)
        #expect(linked.status == 2 && linked.standardError.hasSuffix("it is a file with other names (hard links)\n"), "\(linked.standardError)")
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "export PATH=/usr/bin\n")
    }

    @Test func aFolderEveryoneCanWriteInIsRefusedUnlessSticky() throws {
        let directory = try TemporaryDirectory()
        _ = try directory.write(Synthetic.gradient(20, 16).encoded(as: .png), to: "a.png")
        try FileManager.default.createDirectory(atPath: directory.file("open"), withIntermediateDirectories: true)
        chmod(directory.file("open"), 0o777)
        let open = try CommandRunner.run(["run", "-e", "fit 8x8", "a.png", "-o", "out.png", "--ledger", "open", "-q"], in: directory.path)
        #expect(open.status == 2 && open.standardError.hasPrefix("imagepipe: the ledger 'open' is writable by every user (mode 777) and not sticky"),
                "\(open.standardError)")
        #expect(!FileManager.default.fileExists(atPath: directory.file("open/shard-1-of-1.jsonl")))
        chmod(directory.file("open"), 0o1777) // as /tmp: others may add files, not replace this one
        let sticky = try CommandRunner.run(["run", "-e", "fit 8x8", "a.png", "-o", "out.png", "--ledger", "open", "-q", "--overwrite"], in: directory.path)
        #expect(sticky.status == 0, "\(sticky.standardError)")
        #expect(lines(directory.file("open/shard-1-of-1.jsonl")).count == 3)
    }

    /// A name that is shell code, with a line feed and an ESC, is one JSON string in the ledger
    /// (every line one record, no raw control byte), reads back as itself, and is shown escaped
    /// on standard error; a message holding ESC too.
    @Test func hostileNamesAreEscapedInTheLedgerAndOnTheTerminal() throws {
        let directory = try TemporaryDirectory()
        let good = "p$(id>PWNED)\n\u{1B}[31m\u{2028}.png"
        let bad = "bad\u{1B}]0;owned\u{7}.png"
        _ = try directory.write(Synthetic.gradient(20, 16).encoded(as: .png), to: good)
        _ = try directory.write("not a picture", to: bad)
        let result = try CommandRunner.run(["run", "-e", "fit 8x8", good, bad, "--out-dir", "out", "--ledger", "ledger"], in: directory.path)
        #expect(result.status == 1, "\(result.standardError)")
        let raw = ManifestTests.bytes(directory.file("ledger/shard-1-of-1.jsonl"))
        #expect(!raw.contains(0x1B) && !raw.contains(0x07))
        #expect(!String(decoding: raw, as: UTF8.self).contains("\u{2028}"))
        let records = String(decoding: raw, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        #expect(records.count == 4) // start, two inputs, end: the line feed in the name made no line
        #expect(records.allSatisfy { JSONValue.parse(String($0)) != nil })
        let inputs = lines(directory.file("ledger/shard-1-of-1.jsonl")).compactMap { $0["input"]?.stringValue }
        #expect(Set(inputs) == [good, bad] && inputs.count == 2) // in the order they finished
        #expect(!result.standardError.contains("\u{1B}") && !result.standardError.contains("\u{7}"), "\(result.standardError.debugDescription)")
        #expect(result.standardError.contains(#"p$(id>PWNED)\x0a\x1b[31m\u{2028}.png → "#), "\(result.standardError)")
        #expect(result.standardError.contains(#"imagepipe: bad\x1b]0;owned\x07.png: "#), "\(result.standardError)")

        // The report shows them escaped too.
        let report = try CommandRunner.run(["report", "ledger"], in: directory.path)
        #expect(report.status == 1 && !report.standardOutput.contains("\u{1B}"), "\(report.standardOutput.debugDescription)")
        #expect(report.standardOutput.contains(#"failed:\#n  bad\x1b]0;owned\x07.png: "#), "\(report.standardOutput)")
    }

    /// A list name that is not UTF-8 fails alone, and its bytes are in the message as \xNN: the
    /// ledger's U+FFFD stands for any bad byte, the message says which.
    @Test func aNameThatIsNotUTF8IsNamedByItsBytes() throws {
        let directory = try TemporaryDirectory()
        _ = try directory.write(Array("p".utf8) + [0xFF, 0x1B] + Array(".png\n".utf8), to: "list.txt")
        let result = try CommandRunner.run(["run", "-e", "fit 8x8", "--inputs-from", "list.txt", "--out-dir", "out", "--ledger", "ledger", "-q"],
                                           in: directory.path)
        #expect(result.status == 1)
        #expect(result.standardError.contains(#"list.txt:1: the name is not valid UTF-8: p\xff\x1b.png"#), "\(result.standardError)")
        let record = lines(directory.file("ledger/shard-1-of-1.jsonl")).first { $0["index"] != nil }
        #expect(record?["error"]?.stringValue?.hasSuffix(#"p\xff\x1b.png"#) == true, "\(String(describing: record))")
    }

    @Test func theJSONWriterEscapesEveryControlCharacterAndTheLineSeparators() {
        #expect(JSONValue.string("a\u{1B}b\u{7F}c\u{2028}d\u{2029}e\n").text == #""a\u001bb\u007fc\u2028d\u2029e\n""#)
        #expect(JSONValue.parse(JSONValue.string("\u{1B}\u{2028}\u{0}").text)?.stringValue == "\u{1B}\u{2028}\u{0}")
    }

    // MARK: 2. Crafted numbers, nesting and sizes

    @Test(arguments: [
        (#"{"index":1e300,"input":"a.png","outputs":[],"bytes":[],"seconds":0}"#, #""index" is 1e+300, not a whole number from 1 to 9007199254740992"#),
        (#"{"index":-1,"input":"a.png"}"#, #""index" is -1, not a whole number"#),
        (#"{"index":1,"input":"a.png","outputs":["o"],"bytes":[1e300],"error":null}"#, #""bytes" is 1e+300, not a whole number from 0"#),
        (#"{"index":1,"input":"a.png","seconds":1e300}"#, #""seconds" is 1e+300, not a number of seconds"#),
        (#"{"event":"end","total":1e300,"stopped":false}"#, #""total" is 1e+300, not a whole number from 0"#),
        (#"{"event":"end","total":2.5,"stopped":false}"#, #""total" is 2.5, not a whole number"#),
    ])
    func aNumberOutOfRangeIsAnErrorNamingTheLine(line: String, message: String) throws {
        let (_, result) = try report("{\"event\":\"start\"}\n" + line + "\n")
        #expect(result.status == 2, "\(result.standardError)")
        #expect(result.standardError.hasPrefix("imagepipe: shard-1-of-1.jsonl:2: " + message), "\(result.standardError)")
    }

    @Test func aLineNestedHalfAMillionDeepIsRefusedClearly() throws {
        let (_, result) = try report(String(repeating: "[", count: 500_000) + "\n")
        #expect(result.status == 1, "\(result.standardError)")
        #expect(result.standardOutput.contains("unreadable ledger lines (a run killed while writing?):\n  shard-1-of-1.jsonl:1 (nested deeper than 128 levels)\n"),
                "\(result.standardOutput)")
        #expect(throws: JSONValue.ParseError.self) { try JSONValue.parsing(String(repeating: "[", count: 500_000)) }
        #expect(JSONValue.parse(String(repeating: "[", count: 128) + String(repeating: "]", count: 128)) != nil)
        #expect(JSONValue.parse(String(repeating: "[", count: 129) + String(repeating: "]", count: 129)) == nil)
    }

    @Test func aTotalTheLedgerCannotBackIsRefused() throws {
        let (_, result) = try report(#"{"event":"end","total":2000000000,"stopped":false}"# + "\n")
        #expect(result.status == 2)
        #expect(result.standardError == "imagepipe: shard-1-of-1.jsonl:1: the run says its list had 2000000000 inputs, 2000000000 of them this shard's, but the ledger records 0: not a ledger imagepipe wrote whole (lost lines, or edited)\n",
                "\(result.standardError)")
    }

    /// A stopped run's total is believed (a command line's is known before any input ran): the
    /// report counts 2,000,000,000 missing inputs without a list of them.
    @Test func aStoppedRunsHugeTotalSizesNothing() throws {
        let directory = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: directory.file("ledger"), withIntermediateDirectories: true)
        _ = try directory.write(#"{"event":"end","total":2000000000,"stopped":true}"# + "\n", to: "ledger/shard-1-of-1.jsonl")
        let measured = try PeakMemory.run(["report", "ledger"], in: directory.path)
        #expect(measured.status == 1, "\(measured.standardError)")
        #expect(measured.peakBytes < 200_000_000, "peak \(measured.peakBytes) bytes for a 50-byte ledger")
        let text = try CommandRunner.run(["report", "ledger"], in: directory.path).standardOutput
        #expect(text.hasPrefix("1 shard, 2000000000 inputs: 0 done, 0 failed, 2000000000 missing\n"), "\(text)")
        #expect(text.contains("  input #50 (shard 1 of 1)\n  … and 1999999950 more (--json lists them all)\n"), "\(text)")
    }

    @Test func aHugeShardCountInAFileNameSizesNothing() throws {
        let (_, huge) = try report("{\"event\":\"start\"}\n", name: "shard-1-of-9223372036854775807.jsonl")
        #expect(huge.status == 2 && huge.standardError == "imagepipe: no ledgers (shard-K-of-N.jsonl) in 'ledger'\n", "\(huge.standardError)")
        // The most shards allowed: the ones that never ran are shown as a range.
        let (directory, most) = try report("{\"event\":\"start\"}\n", name: "shard-3-of-10000000.jsonl")
        #expect(most.standardOutput.contains("shards with no ledger (never ran?): 1-2, 4-10000000\n"), "\(most.standardOutput)")
        let measured = try PeakMemory.run(["report", "ledger"], in: directory.path)
        #expect(measured.status == 1 && measured.peakBytes < 200_000_000, "peak \(measured.peakBytes) bytes")
    }

    /// The streamed --json report is one valid object, with the lists in their places.
    @Test func theJSONReportIsOneObject() throws {
        let (_, result) = try report("""
            {"event":"start"}
            {"index":2,"input":"b.png","outputs":["o/b.png"],"bytes":[5],"seconds":0.5,"error":null}
            {"event":"end","total":3,"stopped":true}

            """, name: "shard-2-of-3.jsonl", json: true)
        let object = try #require(JSONValue.parse(result.standardOutput), "\(result.standardOutput)")
        #expect(object.objectKeys == ["shards", "inputs", "done", "skipped", "failed", "missing", "bytes", "seconds", "failures", "missingInputs",
                                      "sharedOutputs", "shardsNeverRun", "shardsUnfinished", "unreadableLines"])
        #expect(object["missingInputs"]?.text == #"[{"index":1,"input":null,"shard":1},{"index":3,"input":null,"shard":3}]"#)
        #expect(object["shardsNeverRun"]?.text == "[1,3]" && object["shardsUnfinished"]?.text == "[2]" && object["bytes"]?.text == "5")
    }

    // MARK: 3. What the report prints is escaped

    @Test func anESCInALedgerErrorIsPrintedAsAnEscape() throws {
        let (_, result) = try report("""
            {"index":1,"input":"a\\u001b[2J.png","outputs":[],"bytes":[],"seconds":0,"error":"a.png: \\u001b]0;owned\\u0007 broken\\nforged line"}

            """, name: "shard-1-of-1.jsonl")
        #expect(result.status == 1)
        #expect(!result.standardOutput.contains("\u{1B}") && !result.standardOutput.contains("\u{7}"), "\(result.standardOutput.debugDescription)")
        #expect(result.standardOutput.contains(#"failed:\#n  a.png: \x1b]0;owned\x07 broken\x0aforged line\#n"#), "\(result.standardOutput)")
    }

    // MARK: 4. The fuzzer's finds

    static var regressionFiles: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: regressions)) ?? []).sorted().map { regressions + "/" + $0 }
    }

    @Test(arguments: regressionFiles)
    func aLedgerRegressionPassesTheFuzzCheck(path: String) throws {
        let bytes = ManifestTests.bytes(path)
        #expect(!bytes.isEmpty)
        bytes.withUnsafeBufferPointer { LedgerFuzzCheck.check($0) }
    }
}
