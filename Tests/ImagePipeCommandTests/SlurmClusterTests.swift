import Foundation
import Testing
import ImagePipe
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Samples/cluster/slurm-avatars.sbatch on a real single-node Slurm cluster, started for the
/// test under a temporary directory by Tests/Cluster/slurm-cluster.sh: an array job of 4 shards
/// over 300 pictures, one task cancelled with scancel in a second run, then that run resubmitted.
@Suite(.serialized) struct SlurmClusterTests {
    static let script = ClusterLibrary.repository + "/Tests/Cluster/slurm-cluster.sh"
    static let batchScript = ClusterLibrary.repository + "/Samples/cluster/slurm-avatars.sbatch"

    /// Slurm's daemons and clients and munge (Debian slurmctld slurmd slurm-client munge, which
    /// `make test` installs), and root, who submits in these tests.
    static let slurmAvailable: Bool = {
        let programs = ["/usr/sbin/slurmctld", "/usr/sbin/slurmd", "/usr/bin/sbatch", "/usr/bin/scancel", "/usr/sbin/munged", "/usr/sbin/mungekey"]
        return getuid() == 0 && programs.allSatisfy(FileManager.default.isExecutableFile(atPath:))
    }()

    /// Its limit catches a hang, not slowness: two array jobs of 300 pictures share the 2 cores
    /// with every other suite of `make test`, and took more than 3 minutes once in CI.
    @Test(.enabled(if: slurmAvailable, "Slurm cannot run here: it needs root and Debian's slurmctld slurmd slurm-client munge (make test installs them)"),
          .timeLimit(.minutes(6)))
    func theSampleArrayJobOnARealCluster() throws {
        let library = try ClusterLibrary(copies: 100)
        let cluster = library.directory.file("cluster")
        let started = try CommandRunner.runProgram("/bin/bash", [Self.script, "start", cluster])
        defer { _ = try? CommandRunner.runProgram("/bin/bash", [Self.script, "stop", cluster]) }
        try #require(started.status == 0, "the cluster did not start: \(started.standardError)")
        func environment(_ out: String) -> [String: String] {
            ["SLURM_CONF": cluster + "/slurm.conf", "IMAGEPIPE": CommandRunner.binary, "PIPELINE": ClusterLibrary.pipeline,
             "INPUTS": "library/photos.txt", "OUT_DIR": out, "LEDGER": out + "-ledger"]
        }

        // 1. The whole array, waited for.
        let first = try CommandRunner.runProgram("/usr/bin/sbatch", ["--wait", "--quiet", Self.batchScript], in: library.directory.path, environment: environment("out"))
        #expect(first.status == 0, "\(first.standardError)")
        library.checkOutputs(in: "out", complete: true)
        for index in 1...4 {
            let lines = library.ledger("out-ledger/shard-\(index)-of-4.jsonl")
            #expect(lines.first?["from"]?.stringValue?.hasPrefix("Slurm: SLURM_ARRAY_TASK_ID=\(index - 1), SLURM_ARRAY_TASK_MIN=0, SLURM_ARRAY_TASK_COUNT=4") == true)
            #expect(lines.filter { $0["index"] != nil }.count == 75)
            #expect(lines.last?["stopped"]?.boolValue == false)
        }
        let report = try CommandRunner.run(["report", "out-ledger"], in: library.directory.path)
        #expect(report.status == 0)
        #expect(report.standardOutput.hasPrefix("4 shards, 300 inputs: 300 done, 0 failed, 0 missing\n"), "\(report.standardOutput)")

        // 2. Again into new directories; the second task is cancelled once it has done a few.
        let submission = library.directory.file("submission.txt")
        _ = FileManager.default.createFile(atPath: submission, contents: nil)
        let sbatch = Process()
        sbatch.executableURL = URL(fileURLWithPath: "/usr/bin/sbatch")
        sbatch.arguments = ["--wait", Self.batchScript]
        sbatch.currentDirectoryURL = URL(fileURLWithPath: library.directory.path)
        sbatch.environment = ProcessInfo.processInfo.environment.merging(environment("cancelled")) { $1 }
        sbatch.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: submission))
        try sbatch.run()
        let deadline = Date().addingTimeInterval(60)
        var job = ""
        while Date() < deadline, sbatch.isRunning {
            job = ((try? String(contentsOfFile: submission, encoding: .utf8)) ?? "").filter(\.isNumber)
            if !job.isEmpty, library.ledger("cancelled-ledger/shard-2-of-4.jsonl").count >= 4 { break }
            usleep(20_000)
        }
        try #require(!job.isEmpty, "no job id from sbatch")
        let cancel = try CommandRunner.runProgram("/usr/bin/scancel", ["\(job)_1"], environment: environment("cancelled"))
        #expect(cancel.status == 0, "\(cancel.standardError)")
        sbatch.waitUntilExit()
        // imagepipe was exec'd: scancel's SIGTERM reached it, it gave up the picture in hand and wrote its end line.
        let cancelled = library.ledger("cancelled-ledger/shard-2-of-4.jsonl")
        #expect(cancelled.last?["event"]?.stringValue == "end" && cancelled.last?["stopped"]?.boolValue == true, "\(cancelled.last?.text ?? "no ledger")")
        let recorded = cancelled.filter { $0["index"] != nil }.count
        #expect(recorded >= 3 && recorded < 75, "cancelled halfway: \(recorded) of 75")
        let written = library.checkOutputs(in: "cancelled", complete: false)
        #expect(written == 225 + recorded, "the other three tasks finished; the cancelled one left only whole outputs")
        let states = ((try? String(contentsOfFile: cluster + "/jobcomp.txt", encoding: .utf8)) ?? "").split(separator: "\n")
            .compactMap { $0.split(separator: " ").first { $0.hasPrefix("JobState=") } }
        #expect(states.filter { $0 == "JobState=CANCELLED" }.count == 1, "\(states)")
        let incomplete = try CommandRunner.run(["report", "cancelled-ledger", "--inputs-from", "library/photos.txt"], in: library.directory.path)
        #expect(incomplete.status == 1)
        #expect(incomplete.standardOutput.hasPrefix("4 shards, 300 inputs: \(225 + recorded) done, 0 failed, \(75 - recorded) missing\n"), "\(incomplete.standardOutput)")
        #expect(incomplete.standardOutput.contains("shards whose last run did not finish (stopped or killed): 2\n"))
        #expect(incomplete.standardOutput.contains("missing (in no ledger):\n  library/"))

        // 3. The same array submitted again finishes the job: done files are passed over.
        let again = try CommandRunner.runProgram("/usr/bin/sbatch", ["--wait", "--quiet", Self.batchScript], in: library.directory.path, environment: environment("cancelled"))
        #expect(again.status == 0, "\(again.standardError)")
        library.checkOutputs(in: "cancelled", complete: true)
        let final = try CommandRunner.run(["report", "cancelled-ledger"], in: library.directory.path)
        #expect(final.status == 0)
        #expect(final.standardOutput.hasPrefix("4 shards, 300 inputs: 300 done (\(225 + recorded) skipped, done before), 0 failed, 0 missing\n"), "\(final.standardOutput)")
    }
}
