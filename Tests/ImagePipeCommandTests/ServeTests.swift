import Foundation
import Testing
import TestSupport

/// `imagepipe serve` with real clients (Tests/Serve/serve_test.py): signatures checked against
/// Python's own hmac, every status code, traversal in every spelling, a slow client, 300
/// connections at once, the time limit, a full queue, and the drain on SIGTERM.
@Suite struct ServeTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Its timings (a 3 s time limit, a drain within seconds) are an uninstrumented build's:
    /// under ThreadSanitizer (`make sanitize`) the race check below takes its place.
    static let instrumented = CommandRunner.binary.contains("/.build/tsan/")

    /// The scripts bound their own waits (a server that does not start or answer, a drain that
    /// does not end, fail them within a minute or two). Swift Testing counts a time limit from
    /// when it starts a test, which on 2 cores full of other tests can be minutes before the body
    /// runs: `make test` reported these tests passing "after 398 s", and once failed the
    /// deployment one at its 3 minutes though its script takes 0.3 s. The limit is a backstop
    /// longer than the whole run.
    static let backstop = TimeLimitTrait.Duration.minutes(15)

    @Test(.timeLimit(backstop), .disabled(if: instrumented, "timed for an uninstrumented build"))
    func theServiceAnswersRealClients() throws {
        let directory = try TemporaryDirectory()
        let script = Self.root.appendingPathComponent("Tests/Serve/serve_test.py").path
        let result = try CommandRunner.runProgram("/usr/bin/python3", [script, CommandRunner.binary, directory.path])
        #expect(result.status == 0, "serve_test.py failed:\n\(result.standardOutput)\n\(result.standardError.suffix(4000))")
        #expect(result.standardOutput.contains("0 failure(s)"))
    }

    /// Samples/serve: the Kubernetes Deployment, Service and autoscaler, and the systemd unit,
    /// read offline (PyYAML, an INI reader), their fields checked against each other, and each
    /// command run here against a folder of its own (Tests/Serve/deployment_test.py).
    @Test(.timeLimit(backstop), .disabled(if: instrumented, "timed for an uninstrumented build"))
    func theDeploymentSamplesServe() throws {
        let directory = try TemporaryDirectory()
        let script = Self.root.appendingPathComponent("Tests/Serve/deployment_test.py").path
        let result = try CommandRunner.runProgram("/usr/bin/python3", [script, CommandRunner.binary, Self.root.path, directory.path])
        #expect(result.status == 0, "deployment_test.py failed:\n\(result.standardOutput)\n\(result.standardError.suffix(4000))")
        #expect(result.standardOutput.contains("0 failure(s)"))
    }

    /// Built with ThreadSanitizer (`make sanitize`): the server under a little load from every
    /// side at once (both workers, every format, failures, /metrics, a full queue, the drain on
    /// SIGTERM) reports no data race (Tests/Serve/serve_race_test.py).
    @Test(.enabled(if: instrumented, "for make sanitize")) func theServiceHasNoDataRace() throws {
        let directory = try TemporaryDirectory()
        let script = Self.root.appendingPathComponent("Tests/Serve/serve_race_test.py").path
        let result = try CommandRunner.runProgram("/usr/bin/python3", [script, CommandRunner.binary, directory.path])
        #expect(result.status == 0, "serve_race_test.py failed:\n\(result.standardOutput.suffix(8000))\n\(result.standardError.suffix(4000))")
        #expect(result.standardOutput.contains("0 failure(s)"))
    }

    @Test func urlWritesWhatServeReads() throws {
        let signed = try CommandRunner.run(["url", "--key", "00ff", "--salt", "ab", "resize 300x", "a b/c.jpg", "--format", "webp"])
        #expect(signed.status == 0, "\(signed.standardError)")
        // The pipeline in URL-safe base64, the space of the source escaped, @webp after it.
        #expect(signed.standardOutput.hasSuffix("/cmVzaXplIDMwMHg/a%20b/c.jpg@webp\n"), "\(signed.standardOutput)")
        let refused = try CommandRunner.run(["url", "--unsigned", "nonsense 3", "a.jpg"])
        #expect(refused.status == 2 && refused.standardError.contains("nonsense"), "\(refused.standardError)")
        let noKey = try CommandRunner.run(["serve", "--root", "."])
        #expect(noKey.status == 2 && noKey.standardError.contains("--unsigned"), "\(noKey.standardError)")
    }
}
