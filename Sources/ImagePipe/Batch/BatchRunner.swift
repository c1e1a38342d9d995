import Dispatch
#if canImport(Glibc)
import Glibc
#endif

/// The engine of a `Batch`: runs one pipeline over many inputs on `jobs` threads. Each thread
/// takes the next input when it is free, so at most `jobs` pictures are in memory whatever the
/// number of inputs; each input's work is the same as alone, so outputs do not depend on `jobs`.
/// The inputs come from an `InputFeed` (a list, or a streamed manifest's, of this shard).
struct BatchRunner: Sendable {
    let pipeline: Pipeline
    let feed: InputFeed
    let jobs: Int
    /// Told of each input as it starts and as it ends, from the worker threads.
    let progress: @Sendable (BatchProgress) -> Void
    /// What a worker has to say that is not an input's outcome (a run left behind, a picture
    /// waiting for memory, a trace that cannot be written).
    let warn: @Sendable (String) -> Void
    let note: @Sendable (String) -> Void
    /// An error as the messages show it (the command words each remedy by its option).
    let describe: @Sendable (any Error) -> String
    /// The directory for a trace of every run, if asked.
    let traceDirectory: String?
    /// Inputs done before are passed over (`Batch.resume`): by `recorded`, else by their outputs.
    let resume: Bool
    /// Whether to start no more inputs (the batch's cancellation, or a first Ctrl-C).
    let stopStarting: @Sendable () -> Bool
    /// Whether outcomes are kept for the result: not for a streamed manifest, whose length
    /// must not decide the memory held.
    let keepsOutcomes: Bool
    private let clock = ContinuousClock()
    private let start: ContinuousClock.Instant
    /// The longest one input may take (`TimeLimit`); past it the input fails and the batch
    /// goes on.
    var timeLimit: TimeLimit = .none
    /// Seconds of the limit already used before the one input started: reading standard input
    /// comes under the same limit, so a slow writer and a slow decode end at one deadline.
    var timeoutSpent = 0.0
    /// With `--ledger`, where each finished input is recorded.
    var ledger: LedgerWriter? = nil
    /// Resuming with a ledger: its last record of each input, by the input's place in the list.
    var recorded: [Int: LedgerReport.Entry] = [:]
    /// Inputs of a streamed manifest were never seen by `OutputCheck`: each is checked alone,
    /// just before it runs (a check across inputs would hold the whole list).
    var checkEach = false
    /// With `--overwrite`, for `checkEach`.
    var allowOverwrite = false
    /// With `--max-memory` (or its default), what the pictures in progress may hold together.
    var memory: MemoryBudget? = nil
    /// Set once a run was abandoned, so that its temporary file can be removed at the end.
    private let abandoned = Locked(false)

    init(pipeline: Pipeline, feed: InputFeed, jobs: Int, progress: @escaping @Sendable (BatchProgress) -> Void,
         warn: @escaping @Sendable (String) -> Void, note: @escaping @Sendable (String) -> Void,
         describe: @escaping @Sendable (any Error) -> String, traceDirectory: String?, resume: Bool,
         stopStarting: @escaping @Sendable () -> Bool, keepsOutcomes: Bool) {
        (self.pipeline, self.feed, self.jobs, self.progress, self.warn, self.note, self.describe) = (pipeline, feed, jobs, progress, warn, note, describe)
        (self.traceDirectory, self.resume, self.stopStarting, self.keepsOutcomes) = (traceDirectory, resume, stopStarting, keepsOutcomes)
        start = clock.now
    }

    /// Seconds since the batch started.
    var elapsed: Double { (clock.now - start).inSeconds }

    /// Runs every input; the outcomes, in the inputs' order, when `keepsOutcomes`.
    func run() -> [FileOutcome] {
        let kept = Locked<[Int: FileOutcome]>([:])
        defer { if abandoned.withLock({ $0 }) { ImageFile.removeTemporaryFiles() } }
        // Keyed by the input's place in the whole list; the trace's index page lists them in order.
        let traced = Locked<[Int: (outcome: FileOutcome, folder: String)]>([:])
        DispatchQueue.concurrentPerform(iterations: max(1, jobs)) { _ in
            // A run of this worker's past its time limit, told to stop, and whose it is.
            var stopping: (run: DispatchSemaphore, input: String)?
            while !stopStarting(), let item = feed.next() {
                // Its thread and memory are let go before the next picture starts: given a
                // moment, a run told to stop ends; one stuck in a library that checks nothing is
                // left behind, and said to be.
                if let (run, input) = stopping, run.wait(timeout: .now() + .milliseconds(Int(Self.stopGrace * 1000))) != .success {
                    abandoned.withLock { $0 = true }
                    warn("\(input): still working \(Self.seconds(Self.stopGrace)) after its time limit, inside a library that cannot be stopped; the next picture starts beside it")
                }
                stopping = nil
                let input = name(of: item.context)
                progress(.started(input: input))
                let outcome = item.problem.map { failure($0, context: item.context) } ?? checked(item.context) { stopping = ($0, input) }
                // In a batch, a picture given up because the run was stopped (SIGTERM) is neither
                // done nor failed: left out of the ledger and the counts, it is made again on resuming.
                if feed.batch, stopStarting(), outcome.error != nil { continue }
                ledger?.record(outcome, index: item.context.index)
                if keepsOutcomes { kept.withLock { $0[item.context.index] = outcome } }
                if traceDirectory != nil { traced.withLock { $0[item.context.index] = (outcome, traceFolder(for: item.context)) } }
                progress(.finished(outcome))
            }
            if let (run, _) = stopping, run.wait(timeout: .now()) != .success { abandoned.withLock { $0 = true } }
        }
        if let traceDirectory, feed.batch {
            let runs = traced.withLock { $0 }.sorted { $0.key < $1.key }.map { _, run in
                (input: run.outcome.input, folder: run.folder, error: run.outcome.error)
            }
            do { try TraceWriter.writeBatchIndex(in: traceDirectory, runs: runs) } catch { warn("the trace's index page: \(error)") }
        }
        return kept.withLock { $0 }.sorted { $0.key < $1.key }.map(\.value)
    }

    /// Where one input's trace goes: the trace directory itself for a single input, else a
    /// folder in it per input.
    private func traceFolder(for context: RunContext) -> String {
        guard let traceDirectory else { return "" }
        let input = name(of: context)
        return !feed.batch ? traceDirectory : traceDirectory + "/\(context.index)-" + Self.stem(of: input)
    }

    /// Runs an input after the checks `OutputCheck` makes for a whole command line, when needed.
    private func checked(_ context: RunContext, stopping: (DispatchSemaphore) -> Void) -> FileOutcome {
        if checkEach {
            do { try OutputCheck(pipeline: pipeline, contexts: [context], allowOverwrite: allowOverwrite, describe: describe).run() } catch {
                return failure("\(name(of: context)): \(describe(error))", context: context)
            }
        }
        // Before any header is read: a finished input costs nothing.
        if resume, let outputs = try? pipeline.outputs(in: context), !outputs.isEmpty, isDone(context, outputs: outputs) {
            return FileOutcome(input: name(of: context), outputs: outputs, inputSize: nil, outputSize: nil, seconds: 0, error: nil, skipped: true)
        }
        var context = context
        // Until the run proper starts, what reads the input is bounded by the same time limit.
        if let timeout = timeLimit.readingSeconds { context.loadOptions.deadline = .now + .milliseconds(Int64(timeout * 1000)) }
        if let input = context.input, input != "-", context.inputBytes == nil, Self.isReadOnce(input) {
            // A FIFO or device gives its bytes once: read them ahead (within the limits), so that
            // the header read and the decode see the same picture.
            do {
                context.inputBytes = try ImageFile.readPicture(path: input, options: context.loadOptions)
            } catch {
                return failure(message(for: error, input: input), context: context)
            }
        }
        // The plan is needed for the memory budget and for a time limit that grows with the work.
        guard memory != nil || timeLimit == .scaled else { return processWithinTimeout(context, prepared: nil, stopping: stopping, whenEnded: {}) }
        // A header that cannot be read or planned reserves nothing: the run reports why.
        guard let prepared = try? pipeline.prepare(in: context) else { return processWithinTimeout(context, prepared: nil, stopping: stopping, whenEnded: {}) }
        guard let memory else { return processWithinTimeout(context, prepared: prepared, stopping: stopping, whenEnded: {}) }
        let plan = prepared.plan
        let input = name(of: context)
        let cost = pipeline.estimatedPeakBytes(in: context, prepared: prepared, inputBytes: context.inputBytes?.count ?? 0)
        guard memory.fits(cost) else {
            // A small picture can be refused for what a stage holds beside it (a huge caption):
            // the message names that stage, or it would read as nonsense.
            let holder = plan.largestHolder.map { ", \(MemoryBudget.describe($0.held)) of it for \($0.stage.stageSchema.name)" } ?? ""
            let refusal = ImageError(.tooLarge, path: input, reason: "a \(plan.decodeSize) picture making \(plan.outputSize) needs about \(MemoryBudget.describe(cost)) of memory\(holder), more than the memory limit of \(MemoryBudget.describe(memory.limit))", remedy: .raiseMemoryLimit)
            return failure(describe(refusal), context: context)
        }
        memory.reserve(cost) { held in
            note("\(input): waits for memory: needs about \(MemoryBudget.describe(cost)), and \(MemoryBudget.describe(held)) of the memory limit of \(MemoryBudget.describe(memory.limit)) is held by the pictures in progress")
        }
        return processWithinTimeout(context, prepared: prepared, stopping: stopping) { memory.release(cost) }
    }

    /// Whether a resumed batch passes over an input: the ledger's last word on it, when that is
    /// about this input (the same place in the list, the same name) writing these outputs; else
    /// whether its outputs all exist as files.
    private func isDone(_ context: RunContext, outputs: [String]) -> Bool {
        if let entry = recorded[context.index], entry.input == name(of: context) {
            if entry.error != nil { return false }
            if entry.outputs.sorted() == outputs.sorted() { return true }
        }
        return outputs.allSatisfy(Self.isRegularFile)
    }

    /// The name a picture goes by in messages: its input, or the file its pipeline's `load` names.
    private func name(of context: RunContext) -> String {
        context.input ?? (pipeline.source as? Load)?.path ?? "-"
    }

    private func failure(_ message: String, context: RunContext) -> FileOutcome {
        FileOutcome(input: name(of: context), outputs: [], inputSize: nil, outputSize: nil, seconds: 0, error: message, skipped: false)
    }

    /// Runs one input on a thread of its own and waits at most `timeout` for it. Past the limit
    /// the run is told to stop (its cancellation, checked between stages and rows, and the
    /// deadline in its load options, checked by the decoders as they go) and its output gate is
    /// closed, so it never writes a file after that; `stopping` is handed what signals its end,
    /// for the worker to wait on before its next input. Only a run stuck inside a C loader that
    /// checks nothing is left to end on its own.
    /// `whenEnded` is called once the run has truly ended, even when it was abandoned: it gives
    /// back the memory the run holds.
    private func processWithinTimeout(_ context: RunContext, prepared: PreparedRun?, stopping: (DispatchSemaphore) -> Void,
                                      whenEnded: @escaping @Sendable () -> Void) -> FileOutcome {
        guard let timeout = timeLimit.seconds(for: prepared?.plan, frames: prepared?.animation?.frames.count ?? 1, pipeline: pipeline, context: context) else {
            defer { whenEnded() }
            return process(context, prepared: prepared)
        }
        var context = context
        let clock = ContinuousClock()
        let allowed = max(0.001, timeout - timeoutSpent)
        context.loadOptions.deadline = clock.now + .milliseconds(Int64(allowed * 1000))
        let gate = OutputGate()
        context.outputGate = gate
        let cancellation = Cancellation(parent: context.cancellation)
        context.cancellation = cancellation
        let result = Locked<FileOutcome?>(nil)
        let done = DispatchSemaphore(value: 0)
        let start = elapsed
        let runContext = context
        DetachedThread.start {
            let outcome = process(runContext, prepared: prepared)
            whenEnded()
            result.withLock { $0 = outcome }
            done.signal()
        }
        if done.wait(timeout: .now() + .milliseconds(Int(allowed * 1000))) == .success, let outcome = result.withLock({ $0 }) {
            return outcome
        }
        cancellation.cancel()
        gate.close() // waits for a rename in progress: after this, nothing of this run lands
        if let outcome = result.withLock({ $0 }) { return outcome } // it finished meanwhile
        gate.withdraw() // and what a tee of it wrote is taken back
        stopping(done)
        let input = name(of: context)
        // The remedy (a longer limit) is the front end's to word: the command names its option.
        let limit = timeLimit == .scaled ? " (the limit for its work)" : ""
        let message = describe(ImageError(.timedOut, path: input, reason: "took more than \(Self.seconds(timeout))\(limit); nothing written"))
        return FileOutcome(input: input, outputs: [], inputSize: nil, outputSize: nil, seconds: elapsed - start, error: message, skipped: false)
    }

    /// How long a run past its time limit is given to stop before the worker's next input starts
    /// without it.
    package static let stopGrace = 2.0

    /// `60 s`, `0.5 s`
    package static func seconds(_ value: Double) -> String {
        value == value.rounded() ? "\(Int(value)) s" : "\(value) s"
    }

    /// Runs one input; `prepared` is its plan when `checked` made one.
    private func process(_ context: RunContext, prepared: PreparedRun?) -> FileOutcome {
        let input = name(of: context)
        let start = elapsed
        var plan: Plan?
        var trace: TraceWriter?
        do {
            var context = context
            if traceDirectory != nil {
                trace = try TraceWriter(directory: traceFolder(for: context), title: input)
                context.trace = trace
            }
            let result = try pipeline.run(in: context, prepared: prepared)
            plan = result.plan
            try trace?.finish(failure: nil)
            return FileOutcome(input: input, outputs: result.outputs, inputSize: plan?.sourceSize, outputSize: pipeline.sink is Branch ? nil : result.outputSize,
                               seconds: elapsed - start, error: nil, skipped: false,
                               notes: FileOutcome.notes(of: result, in: pipeline))
        } catch {
            let message = self.message(for: error, input: feed.batch ? input : nil)
            try? trace?.finish(failure: message)
            return FileOutcome(input: input, outputs: [], inputSize: nil, outputSize: nil, seconds: elapsed - start, error: message, skipped: false)
        }
    }

    /// An error's message, with the input (in a batch) named when the error does not name it.
    func message(for error: any Error, input: String?) -> String {
        if let imageError = error as? ImageError, imageError.path != nil { return describe(imageError) }
        return (input.map { "\($0): " } ?? "") + describe(error)
    }

    /// Whether `path` exists and can be read only once (a FIFO or a character device).
    package static func isReadOnce(_ path: String) -> Bool {
        var status = stat()
        return stat(path, &status) == 0 && [S_IFIFO, S_IFCHR].contains(status.st_mode & S_IFMT)
    }

    /// Whether an output exists as a finished file (a device such as /dev/null is never "done").
    package static func isRegularFile(_ path: String) -> Bool {
        var status = stat()
        return stat(path, &status) == 0 && (status.st_mode & S_IFMT) == S_IFREG
    }

    package static func stem(of path: String) -> String {
        PathBytes.splitExtension(PathBytes.lastComponent(path)).stem
    }
}
