import Foundation
import Testing
import ImagePipe
import TestSupport

/// Samples/cluster/avatars-indexed-job.yaml. No Kubernetes control plane can run here (Debian
/// has only the client), so the Job is checked as kubectl reads it, and its container's command
/// is run on this machine once per completion index with JOB_COMPLETION_INDEX set, the volume's
/// mount path standing for a temporary directory.
@Suite struct KubernetesJobTests {
    static let manifest = ClusterLibrary.repository + "/Samples/cluster/avatars-indexed-job.yaml"
    static let kubectl = ["/usr/bin/kubectl", "/usr/local/bin/kubectl"].first(where: FileManager.default.isExecutableFile(atPath:))

    /// The Job as kubectl decodes it, offline (`label --local` needs no server), as JSON.
    static func job() throws -> [String: Any] {
        let decoded = try CommandRunner.runProgram(try #require(kubectl), ["label", "--local", "-f", manifest, "checked=yes", "-o", "json"])
        try #require(decoded.status == 0, "kubectl cannot read the Job: \(decoded.standardError)")
        return try #require(try JSONSerialization.jsonObject(with: Data(decoded.standardOutput.utf8)) as? [String: Any])
    }

    @Test(.enabled(if: kubectl != nil, "kubectl is not installed (Debian kubernetes-client)"))
    func theIndexedJobRunsEveryIndexLocally() throws {
        let job = try Self.job()
        #expect(job["apiVersion"] as? String == "batch/v1" && job["kind"] as? String == "Job")
        let spec = try #require(job["spec"] as? [String: Any])
        #expect(spec["completionMode"] as? String == "Indexed")
        let completions = try #require(spec["completions"] as? Int)
        let parallelism = try #require(spec["parallelism"] as? Int)
        #expect(parallelism >= 1 && parallelism <= completions)
        let pod = try #require((spec["template"] as? [String: Any])?["spec"] as? [String: Any])
        #expect(pod["restartPolicy"] as? String == "Never")
        let container = try #require((pod["containers"] as? [[String: Any]])?.first)
        let command = try #require(container["command"] as? [String])
        #expect(command.first == "imagepipe", "the command is the container's process 1, no shell: SIGTERM reaches imagepipe")
        // The count Kubernetes does not pass to pods is given once, and matches the Job's.
        let shards = try #require(command.firstIndex(of: "--shards").map { command[$0 + 1] })
        #expect(Int(shards) == completions)
        let mount = try #require((container["volumeMounts"] as? [[String: Any]])?.first)
        let volumes = (pod["volumes"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
        #expect(volumes.contains(mount["name"] as? String ?? "?"))
        let mountPath = try #require(mount["mountPath"] as? String)

        // Each pod's command, here: /data → a directory holding the library, the pipeline and the list.
        let library = try ClusterLibrary(copies: 12)
        let data = library.directory.file("library")
        try FileManager.default.copyItem(atPath: ClusterLibrary.pipeline, toPath: data + "/avatar.pipe")
        let local = command.dropFirst().map { $0.hasPrefix(mountPath + "/") ? data + $0.dropFirst(mountPath.count) : $0 }
        for index in 0..<completions {
            let pod = try CommandRunner.run(Array(local), environment: ["JOB_COMPLETION_INDEX": "\(index)"])
            #expect(pod.status == 0, "index \(index): \(pod.standardError)")
        }
        // Photos are listed relative to /data, so the avatars land in /data/avatars/{dir}.
        library.checkOutputs(in: "library/avatars", complete: true)
        let first = library.ledger("library/ledger/shard-1-of-\(completions).jsonl").first
        #expect(first?["from"]?.stringValue == "Kubernetes: JOB_COMPLETION_INDEX=0, \(completions) shards")
        let report = try CommandRunner.run(["report", data + "/ledger"])
        #expect(report.status == 0)
        #expect(report.standardOutput.hasPrefix("\(completions) shards, 36 inputs: 36 done, 0 failed, 0 missing\n"), "\(report.standardOutput)")
        // An index the Job would not have (completions raised without --shards) is refused.
        let stray = try CommandRunner.run(Array(local), environment: ["JOB_COMPLETION_INDEX": "\(completions)"])
        #expect(stray.status == 2)
        #expect(stray.standardError.contains("JOB_COMPLETION_INDEX=\(completions) is outside the \(completions) shards"))
    }

    /// `kubectl apply --dry-run=client` still asks a server for the API's schema: where none
    /// answers (here), it is reported, not failed.
    @Test(.enabled(if: kubectl != nil, "kubectl is not installed (Debian kubernetes-client)"))
    func dryRunWhereAServerAnswers() throws {
        let result = try CommandRunner.runProgram(try #require(Self.kubectl), ["apply", "--dry-run=client", "-f", Self.manifest, "--request-timeout=5s"])
        if result.status == 0 {
            #expect(result.standardOutput.contains("job.batch/avatars created (dry run)"))
        } else {
            let noServer = ["connection refused", "no configuration has been provided", "couldn't get current server API group list", "failed to download openapi"]
            #expect(noServer.contains { result.standardError.contains($0) }, "kubectl refused the Job: \(result.standardError)")
        }
    }
}
