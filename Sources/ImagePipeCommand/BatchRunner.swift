import Dispatch
import ImagePipe
#if canImport(Glibc)
import Glibc
#endif

/// Runs one pipeline over many inputs on `jobs` threads. Each thread takes the next input when
/// it is free, so at most `jobs` pictures are in memory whatever the number of inputs; each
/// input's work is the same as alone, so outputs do not depend on `jobs`.
struct BatchRunner: Sendable {
    let pipeline: Pipeline
    let contexts: [RunContext]
    let jobs: Int
    let reporter: ProgressReporter
    /// The directory for `--trace`, if asked.
    let traceDirectory: String?
    /// With `--skip-existing`, inputs whose outputs all exist are passed over (to resume a batch).
    let skipExisting: Bool
    let interruption: Interruption
    /// With `--timeout`, the longest one input may take, in seconds; past it the input fails
    /// and the batch goes on.
    var timeout: Double? = nil
    /// Set once a run was abandoned, so that its temporary file can be removed at the end.
    private let abandoned = Locked(false)

    func run() {
        defer { if abandoned.withLock({ $0 }) { ImageFile.removeTemporaryFiles() } }
        let next = Locked(0)
        let traced = Locked<[Int: FileOutcome]>([:])
        DispatchQueue.concurrentPerform(iterations: max(1, min(jobs, contexts.count))) { _ in
            while true {
                let index = next.withLock { value in
                    defer { value += 1 }
                    return value
                }
                guard index < contexts.count, interruption.received == nil else { return }
                let outcome = processWithinTimeout(contexts[index])
                if traceDirectory != nil { traced.withLock { $0[index] = outcome } }
                reporter.finished(outcome)
            }
        }
        if let traceDirectory, contexts.count > 1 {
            let runs = traced.withLock { $0 }.sorted { $0.key < $1.key }.map { index, outcome in
                (input: outcome.input, folder: traceFolder(for: contexts[index]), error: outcome.error)
            }
            do { try TraceWriter.writeBatchIndex(in: traceDirectory, runs: runs) } catch { reporter.warn("--trace: \(error)") }
        }
    }

    /// Where one input's trace goes: the trace directory itself for a single input, else a
    /// folder in it per input.
    private func traceFolder(for context: RunContext) -> String {
        guard let traceDirectory else { return "" }
        let input = context.input ?? "-"
        return contexts.count == 1 ? traceDirectory : traceDirectory + "/\(context.index)-" + Self.stem(of: input)
    }

    /// Runs one input on a thread of its own and waits at most `timeout` for it. A decoder in C
    /// cannot be interrupted, so a run past the limit is reported as failed and left to end on
    /// its own: its output gate is closed first, so it never writes a file after that, and the
    /// deadline in its load options stops its decoder at the next chunk of data.
    private func processWithinTimeout(_ context: RunContext) -> FileOutcome {
        guard let timeout else { return process(context) }
        var context = context
        let clock = ContinuousClock()
        context.loadOptions.deadline = clock.now + .milliseconds(Int64(timeout * 1000))
        let gate = OutputGate()
        context.outputGate = gate
        let result = Locked<FileOutcome?>(nil)
        let done = DispatchSemaphore(value: 0)
        let start = reporter.elapsed
        let runContext = context
        DetachedThread.start {
            let outcome = process(runContext)
            result.withLock { $0 = outcome }
            done.signal()
        }
        if done.wait(timeout: .now() + .milliseconds(Int(timeout * 1000))) == .success, let outcome = result.withLock({ $0 }) {
            return outcome
        }
        gate.close() // waits for a rename in progress: after this, nothing of this run lands
        if let outcome = result.withLock({ $0 }) { return outcome } // it finished meanwhile
        abandoned.withLock { $0 = true }
        let input = context.input ?? "-"
        let message = ImageError(.timedOut, path: input, reason: "took more than \(Self.seconds(timeout)) (--timeout); nothing written").description
        return FileOutcome(input: input, outputs: [], inputSize: nil, outputSize: nil, seconds: reporter.elapsed - start, error: message, skipped: false)
    }

    /// `60 s`, `0.5 s`
    static func seconds(_ value: Double) -> String {
        value == value.rounded() ? "\(Int(value)) s" : "\(value) s"
    }

    private func process(_ context: RunContext) -> FileOutcome {
        let input = context.input ?? "-"
        let start = reporter.elapsed
        var plan: Plan?
        var trace: TraceWriter?
        do {
            if skipExisting {
                let outputs = try pipeline.outputs(in: context)
                if !outputs.isEmpty, outputs.allSatisfy(Self.isRegularFile) {
                    return FileOutcome(input: input, outputs: outputs, inputSize: nil, outputSize: nil, seconds: 0, error: nil, skipped: true)
                }
            }
            if traceDirectory != nil { trace = try TraceWriter(directory: traceFolder(for: context), title: input) }
            let result = try pipeline.run(in: context) { event in try trace?.record(event) }
            plan = result.plan
            try trace?.finish(failure: nil)
            return FileOutcome(input: input, outputs: result.outputs, inputSize: plan?.sourceSize, outputSize: plan?.outputSize,
                               seconds: reporter.elapsed - start, error: nil, skipped: false)
        } catch {
            let message = Self.message(for: error, input: contexts.count > 1 ? input : nil)
            try? trace?.finish(failure: message)
            return FileOutcome(input: input, outputs: [], inputSize: nil, outputSize: nil, seconds: reporter.elapsed - start, error: message, skipped: false)
        }
    }

    /// An error's message, with the input (in a batch) named when the error does not name it.
    static func message(for error: any Error, input: String?) -> String {
        if let imageError = error as? ImageError, imageError.path != nil { return imageError.description }
        return (input.map { "\($0): " } ?? "") + "\(error)"
    }

    /// Whether an output exists as a finished file (a device such as /dev/null is never "done").
    static func isRegularFile(_ path: String) -> Bool {
        var status = stat()
        return stat(path, &status) == 0 && (status.st_mode & S_IFMT) == S_IFREG
    }

    static func stem(of path: String) -> String {
        PathBytes.splitExtension(PathBytes.lastComponent(path)).stem
    }
}
