import Foundation
import Testing
import ImagePipe
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// The README's GNU parallel recipe, run for real (Debian `parallel`): four shards, two at a time,
/// by `{#}` on the command line or by PARALLEL_SEQ; and parallel itself stopped with SIGTERM,
/// which `--termseq` passes on to imagepipe with time to finish the pictures in hand.
@Suite struct ParallelTests {
    static let parallel = "/usr/bin/parallel"
    static let available = FileManager.default.isExecutableFile(atPath: parallel)
        && ((try? String(contentsOfFile: parallel, encoding: .utf8))?.contains("GNU") ?? false) // not moreutils' parallel

    static func recipe(_ out: String, shardBy: String) -> [String] {
        let common = [CommandRunner.binary, "run", ClusterLibrary.pipeline, "--inputs-from", "library/photos.txt", "--out-dir", out,
                      "-o", "{dir}/{stem}.png", "--skip-existing", "--ledger", out + "-ledger", "--jobs", "1", "--quiet"]
        switch shardBy {
        case "{#}": return ["--termseq", "TERM,30000,KILL,25", "-j", "2"] + common + ["--shard", "{#}/4", ":::", "1", "2", "3", "4"]
        default: return ["--termseq", "TERM,30000,KILL,25", "-j", "2", "-N0"] + common + ["--shards", "4", ":::", "1", "2", "3", "4"]
        }
    }

    @Test(.enabled(if: available, "GNU parallel is not installed (Debian parallel; make test installs it)"),
          arguments: ["{#}", "PARALLEL_SEQ"])
    func fourShardsTwoAtATime(shardBy: String) throws {
        let library = try ClusterLibrary(copies: 20)
        let result = try CommandRunner.runProgram(Self.parallel, Self.recipe("out", shardBy: shardBy), in: library.directory.path)
        #expect(result.status == 0, "\(result.standardError)")
        library.checkOutputs(in: "out", complete: true)
        let engine = shardBy == "{#}" ? "--shard 2/4" : "GNU parallel: PARALLEL_SEQ=2, 4 shards"
        #expect(library.ledger("out-ledger/shard-2-of-4.jsonl").first?["from"]?.stringValue == engine)
        let report = try CommandRunner.run(["report", "out-ledger"], in: library.directory.path)
        #expect(report.status == 0)
        #expect(report.standardOutput.hasPrefix("4 shards, 60 inputs: 60 done, 0 failed, 0 missing\n"), "\(report.standardOutput)")
    }

    @Test(.enabled(if: available, "GNU parallel is not installed (Debian parallel; make test installs it)"))
    func stoppingParallelLeavesNothingPartial() throws {
        let library = try ClusterLibrary(copies: 60)
        // The test runner hands its children SIGTERM blocked or ignored; a shell would not: perl
        // (which parallel is written in) clears both before it becomes parallel.
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/perl")
        process.arguments = ["-MPOSIX", "-e", #"sigprocmask(SIG_SETMASK, POSIX::SigSet->new) or die; $SIG{TERM} = $SIG{INT} = "DEFAULT"; exec @ARGV or die"#,
                             Self.parallel] + Self.recipe("out", shardBy: "{#}")
        process.currentDirectoryURL = URL(fileURLWithPath: library.directory.path)
        process.standardError = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(60)
        // Both first shards well under way (each has recorded pictures, so its SIGTERM handler is in place).
        while [1, 2].contains(where: { library.ledger("out-ledger/shard-\($0)-of-4.jsonl").count < 4 }), process.isRunning, Date() < deadline { usleep(20_000) }
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
        // Both running shards got the TERM (not parallel's default KILL 0.4 s later) and finished their picture.
        let stopped = (1...4).map { library.ledger("out-ledger/shard-\($0)-of-4.jsonl") }.filter { $0.last?["stopped"]?.boolValue == true }
        #expect(stopped.count == 2, "the two shards running when parallel was stopped")
        let written = library.checkOutputs(in: "out", complete: false)
        #expect(written < 180)
        let again = try CommandRunner.runProgram(Self.parallel, Self.recipe("out", shardBy: "{#}"), in: library.directory.path)
        #expect(again.status == 0, "\(again.standardError)")
        library.checkOutputs(in: "out", complete: true)
        let report = try CommandRunner.run(["report", "out-ledger"], in: library.directory.path)
        #expect(report.standardOutput.hasPrefix("4 shards, 180 inputs: 180 done (\(written) skipped, done before), 0 failed, 0 missing\n"), "\(report.standardOutput)")
    }
}
