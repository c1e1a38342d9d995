import Foundation
import Testing
import ImagePipe
import TestSupport

/// `--inputs-from`: lists of inputs streamed from a file or standard input, split into shards.
@Suite struct ManifestTests {
    /// `library/` with `count` small pictures in two nested directories and `library/photos.txt`
    /// listing them relative to itself, in the order given (not sorted: the list's order counts).
    static func library(_ count: Int) throws -> (TemporaryDirectory, [String]) {
        let directory = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: directory.file("library/2024/may"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: directory.file("library/2023"), withIntermediateDirectories: true)
        var names: [String] = []
        for number in 0..<count {
            let name = (number % 2 == 0 ? "2024/may/" : "2023/") + "p\(count - number).png"
            _ = try directory.write(Synthetic.gradient(20 + number, 16 + number % 5).encoded(as: .png), to: "library/" + name)
            names.append(name)
        }
        _ = try directory.write(names.joined(separator: "\n") + "\n", to: "library/photos.txt")
        return (directory, names)
    }

    /// The regular files below `path`, relative to it, sorted; hidden ones too when asked.
    static func files(under path: String, hidden: Bool = false) -> [String] {
        let enumerator = FileManager.default.enumerator(atPath: path)
        var result: [String] = []
        while let name = enumerator?.nextObject() as? String {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path + "/" + name, isDirectory: &isDirectory), !isDirectory.boolValue else { continue }
            if hidden || !(name as NSString).lastPathComponent.hasPrefix(".") { result.append(name) }
        }
        return result.sorted()
    }

    static func bytes(_ path: String) -> [UInt8] { (try? [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))) ?? [] }

    @Test func shardsTogetherWriteWhatOneRunWrites() throws {
        let (directory, names) = try Self.library(11)
        let common = ["run", "-e", "fit 10x10", "--inputs-from", "library/photos.txt", "-o", "{dir}/{index}-{stem}.png", "-q", "--jobs", "2"]
        let whole = try CommandRunner.run(common + ["--out-dir", "whole"], in: directory.path)
        #expect(whole.status == 0, "\(whole.standardError)")
        // {dir} keeps the list's layout; {index} is the place in the whole list, whichever shard.
        let expected = names.enumerated().map { offset, name in
            PathBytes.directoryPrefix(name) + "\(offset + 1)-" + PathBytes.splitExtension(PathBytes.lastComponent(name)).stem + ".png"
        }.sorted()
        #expect(Self.files(under: directory.file("whole")) == expected)
        var union: [String] = []
        for index in 1...3 {
            let shard = try CommandRunner.run(common + ["--out-dir", "shard\(index)", "--shard", "\(index)/3"], in: directory.path)
            #expect(shard.status == 0, "\(shard.standardError)")
            let mine = Self.files(under: directory.file("shard\(index)"))
            // Dealt in turn: shard 2 of 3 has the 2nd, 5th, 8th, 11th inputs.
            let positions = mine.map { Int(PathBytes.lastComponent($0).split(separator: "-")[0])! }
            #expect(positions.allSatisfy { ($0 - 1) % 3 == index - 1 })
            for file in mine { #expect(Self.bytes(directory.file("shard\(index)/" + file)) == Self.bytes(directory.file("whole/" + file))) }
            union += mine
        }
        #expect(union.sorted() == expected, "every input in exactly one shard")
    }

    @Test func standardInputNulSeparatedAndABase() throws {
        let (directory, _) = try Self.library(3)
        // A name holding a line feed needs -0, as `find -print0` writes it.
        _ = try directory.write(Synthetic.gradient(12, 12).encoded(as: .png), to: "library/two\nlines.png")
        let list = Array("2023/p2.png\u{0}two\nlines.png\u{0}\u{0}".utf8)
        let result = try CommandRunner.run(["run", "-e", "fit 6x6", "--inputs-from", "-", "-0", "--base", "library", "--out-dir", "out", "-q"],
                                           in: directory.path, input: list)
        #expect(result.status == 0, "\(result.standardError)")
        #expect(Self.files(under: directory.file("out")) == ["2023/p2.png", "two\nlines.png"])
        // Without --base, names on standard input are relative to the current directory.
        let here = try CommandRunner.run(["run", "-e", "fit 6x6", "--inputs-from", "-", "--out-dir", "here", "-q"],
                                         in: directory.path, input: Array("library/2023/p2.png\r\n\n".utf8))
        #expect(here.status == 0, "\(here.standardError)")
        #expect(Self.files(under: directory.file("here")) == ["library/2023/p2.png"], "a CR before the LF is dropped; empty lines are skipped")
    }

    @Test func badEntriesFailAloneAndTheRestGoOn() throws {
        let (directory, _) = try Self.library(2)
        var list = Array("2023/p1.png\nmissing.png\n".utf8) + [0x66, 0xFF, 0x2E, 0x70, 0x6E, 0x67, 0x0A] // f\xFF.png
        list += Array(String(repeating: "x", count: 5000).utf8) + [0x0A] + Array("2024/may/p2.png".utf8)
        try Data(list).write(to: URL(fileURLWithPath: directory.file("library/list.txt")))
        let result = try CommandRunner.run(["run", "-e", "fit 6x6", "--inputs-from", "library/list.txt", "--out-dir", "out", "--ledger", "ledger"], in: directory.path)
        #expect(result.status == 1)
        #expect(Self.files(under: directory.file("out")) == ["2023/p1.png", "2024/may/p2.png"])
        #expect(result.standardError.contains("library/list.txt:3: the name is not valid UTF-8"))
        #expect(result.standardError.contains("library/list.txt:4: an entry longer than 4096 bytes"))
        #expect(result.standardError.contains("library/missing.png"))
        #expect(result.standardError.contains("5 files: 2 done, 3 failed in "))
        let report = try CommandRunner.run(["report", "ledger"], in: directory.path)
        #expect(report.status == 1)
        #expect(report.standardOutput.hasPrefix("1 shard, 5 inputs: 2 done, 3 failed, 0 missing\n"), "\(report.standardOutput)")
    }

    @Test func usageErrors() throws {
        let (directory, _) = try Self.library(1)
        let cases: [([String], String)] = [
            (["--inputs-from", "library/photos.txt", "library/2024/may/p1.png"], "--inputs-from takes the place of INPUT arguments: give one or the other"),
            (["--inputs-from", "nowhere.txt"], "cannot read the input list 'nowhere.txt': No such file or directory"),
            (["--inputs-from", "library"], "the input list 'library' is a directory; give a file with one path a line"),
            (["-0", "library/2024/may/p1.png"], "-0 goes with --inputs-from: it says how the list's names end"),
            (["--base", "x", "library/2024/may/p1.png"], "--base goes with --inputs-from: it is where the list's relative paths start"),
            (["--inputs-from", "library/photos.txt", "--shard", "3/2"], "--shard needs K/N with whole numbers 1 ≤ K ≤ N (the first of four is 1/4), got '3/2'"),
        ]
        for (arguments, message) in cases {
            let result = try CommandRunner.run(["run", "-e", "fit 6x6"] + arguments + ["--out-dir", "out"], in: directory.path)
            #expect(result.status == 2)
            #expect(result.standardError == "imagepipe: \(message)\n")
        }
    }

    @Test func theCommandLineIsSortedByBytesWhenSharded() throws {
        let (directory, _) = try Self.library(4)
        // Shell globs and directory listings differ between machines and locales; sorted bytes do not.
        let inputs = ["library/2024/may/p4.png", "library/2023/p3.png", "library/2024/may/p2.png", "library/2023/p1.png"]
        let result = try CommandRunner.run(["run", "-e", "fit 6x6", "-o", "{index}-{stem}.png", "--out-dir", "out", "--shard", "1/2", "-q"] + inputs, in: directory.path)
        #expect(result.status == 0, "\(result.standardError)")
        #expect(Self.files(under: directory.file("out")) == ["1-p1.png", "3-p2.png"])
        // The whole list is checked for collisions, not only this shard's share: shard 2 of 2 has
        // neither p1, yet it refuses as shard 1 does.
        _ = try directory.write(Synthetic.gradient(8, 8).encoded(as: .png), to: "library/2024/may/p1.png")
        let clash = try CommandRunner.run(["run", "-e", "fit 6x6", "-o", "{stem}.png", "--out-dir", "clash", "--shard", "2/2"] + inputs + ["library/2024/may/p1.png"], in: directory.path)
        #expect(clash.status == 2)
        #expect(clash.standardError == "imagepipe: 'library/2023/p1.png' and 'library/2024/may/p1.png' would both be written to 'clash/p1.png'; use {stem}, {dir} or {index} in the output name\n")
    }

    @Test func theEnvironmentChoosesAndJSONAndExplainSayWhich() throws {
        let (directory, _) = try Self.library(6)
        let slurm = ["SLURM_ARRAY_TASK_ID": "11", "SLURM_ARRAY_TASK_MIN": "10", "SLURM_ARRAY_TASK_COUNT": "3"]
        let result = try CommandRunner.run(["run", "-e", "fit 6x6", "--inputs-from", "library/photos.txt", "--out-dir", "out", "--json", "--jobs", "1"],
                                           in: directory.path, environment: slurm)
        #expect(result.status == 0, "\(result.standardError)")
        let lines = result.standardOutput.split(separator: "\n").compactMap { JSONValue.parse(String($0)) }
        #expect(lines.count == 2)
        #expect(lines.first?["shard"]?.text == #"{"index":2,"count":3,"engine":"slurm","from":"Slurm: SLURM_ARRAY_TASK_ID=11, SLURM_ARRAY_TASK_MIN=10, SLURM_ARRAY_TASK_COUNT=3"}"#)
        #expect(result.standardError.hasPrefix("imagepipe: shard 2 of 3 (from Slurm: SLURM_ARRAY_TASK_ID=11, "))
        let explain = try CommandRunner.run(["explain", "-e", "fit 6x6", "--inputs-from", "library/photos.txt"], in: directory.path,
                                            environment: ["JOB_COMPLETION_INDEX": "2", "IMAGEPIPE_SHARDS": "3"])
        #expect(explain.status == 0, "\(explain.standardError)")
        #expect(explain.standardOutput.hasPrefix("shard 3 of 3 (from Kubernetes: JOB_COMPLETION_INDEX=2, 3 shards): 2 of 6 inputs; the first, #3:\nlibrary/2024/may/p4.png: png 22x18\n"), "\(explain.standardOutput)")
        let mismatch = try CommandRunner.run(["run", "-e", "fit 6x6", "--inputs-from", "library/photos.txt", "--shards", "4", "--out-dir", "out"],
                                             in: directory.path, environment: slurm)
        #expect(mismatch.status == 2)
        #expect(mismatch.standardError.hasPrefix("imagepipe: the number of shards (4) does not match the Slurm array's 3 tasks"))
        // One picture per task is left alone.
        let single = try CommandRunner.run(["run", "-e", "fit 6x6", "library/2023/p5.png", "-o", "one.png"], in: directory.path, environment: slurm)
        #expect(single.status == 0 && FileManager.default.fileExists(atPath: directory.file("one.png")))
    }

    /// The list is streamed, not held: a shard's peak memory is the same for 2,000 lines and for
    /// 400,000 (a shard of 1 in 1,000, so that the run is reading, not failing on missing files).
    @Test func memoryDoesNotGrowWithTheList() throws {
        let directory = try TemporaryDirectory()
        var peaks: [Int] = []
        for lines in [2_000, 400_000] {
            let list = (1...lines).map { "photos/\($0)/IMG_\($0).jpg" }.joined(separator: "\n")
            _ = try directory.write(list, to: "list-\(lines).txt")
            let result = try PeakMemory.run(["run", "-e", "fit 8x8", "--inputs-from", "list-\(lines).txt", "--shard", "7/1000",
                                             "--out-dir", "out", "--ledger", "ledger-\(lines)", "-q"], in: directory.path)
            peaks.append(result.peakBytes / 1024)
            let end = ((try? String(contentsOfFile: directory.file("ledger-\(lines)/shard-7-of-1000.jsonl"), encoding: .utf8)) ?? "").split(separator: "\n").last
            #expect(end.flatMap { JSONValue.parse(String($0)) }?["total"]?.numberValue == Double(lines), "the whole list was read")
        }
        // The 400,000-line list is 13 MB: held in memory it would show many times over.
        #expect(peaks[1] - peaks[0] < 3 * 1024, "peak resident KiB: \(peaks)")
    }
}
