import Foundation
import Testing
import ImagePipe
import TestSupport

/// Samples/cluster/avatars-indexed-job.yaml. No Kubernetes control plane can run here, so the
/// Job is read from its YAML (by PyYAML, Debian python3-yaml, which `make test` installs; and by
/// kubectl offline where kubectl is installed), and its container's command is run on this
/// machine once per completion index with JOB_COMPLETION_INDEX set, the volume's mount path
/// standing for a temporary directory.
@Suite struct KubernetesJobTests {
    static let manifest = ClusterLibrary.repository + "/Samples/cluster/avatars-indexed-job.yaml"
    static let kubectl = ["/usr/bin/kubectl", "/usr/local/bin/kubectl"].first(where: FileManager.default.isExecutableFile(atPath:))
    static let readYAML = "import json, sys, yaml; print(json.dumps(yaml.safe_load(open(sys.argv[1]))))"

    static let pyYAMLAvailable: Bool = {
        (try? CommandRunner.runProgram("/usr/bin/python3", ["-c", "import yaml"]).status) == 0
    }()

    /// The Job as PyYAML reads it, through JSON.
    static func job() throws -> [String: Any] {
        let decoded = try CommandRunner.runProgram("/usr/bin/python3", ["-c", readYAML, manifest])
        try #require(decoded.status == 0, "the Job is not valid YAML: \(decoded.standardError)")
        return try #require(try JSONSerialization.jsonObject(with: Data(decoded.standardOutput.utf8)) as? [String: Any])
    }

    @Test(.enabled(if: pyYAMLAvailable, "PyYAML is not installed (Debian python3-yaml; make test installs it)"))
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
        // The container's own variables, if any, as the pod would have them (besides the index).
        let env = (container["env"] as? [[String: Any]] ?? []).reduce(into: [String: String]()) { env, variable in
            if let name = variable["name"] as? String, let value = variable["value"] as? String { env[name] = value }
        }
        #expect(env["JOB_COMPLETION_INDEX"] == nil, "Kubernetes sets the index itself")
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
            let pod = try CommandRunner.run(Array(local), environment: env.merging(["JOB_COMPLETION_INDEX": "\(index)"]) { $1 })
            #expect(pod.status == 0, "index \(index): \(pod.standardError)")
        }
        // Photos are listed relative to /data, so the avatars land in /data/avatars/{dir}: one
        // whole avatar per input, nothing else.
        #expect(library.checkOutputs(in: "library/avatars", complete: true) == library.names.count)
        for index in 1...completions {
            let shard = library.ledger("library/ledger/shard-\(index)-of-\(completions).jsonl").filter { $0["index"] != nil }
            #expect(!shard.isEmpty && shard.allSatisfy { $0["error"] == .null }, "shard \(index): \(shard.map(\.text))")
        }
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

    /// Where kubectl is installed, it reads the Job as PyYAML does (offline: `label --local`
    /// needs no server).
    @Test(.enabled(if: kubectl != nil && pyYAMLAvailable, "kubectl is not installed (Debian kubernetes-client): the Job is read by PyYAML only"))
    func kubectlReadsTheSameJob() throws {
        let decoded = try CommandRunner.runProgram(try #require(Self.kubectl), ["label", "--local", "-f", Self.manifest, "checked=yes", "-o", "json"])
        try #require(decoded.status == 0, "kubectl cannot read the Job: \(decoded.standardError)")
        let job = try #require(try JSONSerialization.jsonObject(with: Data(decoded.standardOutput.utf8)) as? [String: Any])
        let spec = try #require(job["spec"] as? [String: Any]), ours = try #require(try Self.job()["spec"] as? [String: Any])
        #expect(spec["completions"] as? Int == ours["completions"] as? Int && spec["completionMode"] as? String == "Indexed")
        let command = { (spec: [String: Any]) in (((spec["template"] as? [String: Any])?["spec"] as? [String: Any])?["containers"] as? [[String: Any]])?.first?["command"] as? [String] }
        #expect(command(spec) != nil && command(spec) == command(ours))
    }

    /// `kubectl apply --dry-run=client` still asks a server for the API's schema: where none
    /// answers (here), it is reported, not failed.
    @Test(.enabled(if: kubectl != nil, "kubectl is not installed (Debian kubernetes-client): no `kubectl apply --dry-run=client`; the Job is still read and run locally"))
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
