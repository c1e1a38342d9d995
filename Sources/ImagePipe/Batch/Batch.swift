#if canImport(Glibc)
import Glibc
#endif

/// One pipeline over many pictures, as `imagepipe run … --out-dir` runs it (the command is built
/// on this type): output names from templates, several pictures at once, resuming, a ledger,
/// progress and cancellation.
///
/// Everything is checked before any picture is touched: every output can be named, no two
/// inputs write one file, no output replaces an input (unless `overwrite`). Then each input runs
/// as it would alone, so the outputs do not depend on `jobs`; a picture that fails is reported
/// in its outcome and the others go on. Outputs land by rename when complete, so a failed or
/// cancelled input leaves nothing under an output's name.
///
/// ```swift
/// var batch = Batch(pipeline: try StandardPlugins.compiler.compile("fit 256x256"),
///                   inputs: ["a.jpg", "b.png"], outputDirectory: "thumbs")
/// batch.jobs = 2
/// let result = try batch.run()   // thumbs/a.jpg, thumbs/b.png
/// ```
public struct Batch: Sendable {
    /// The pipeline every input goes through.
    public var pipeline: Pipeline
    /// The pictures' paths; `-` reads standard input (then the only input).
    public var inputs: [String]
    /// Where each output goes: a template (`{stem}-small.png`; also `{name}`, `{ext}`, `{dir}`,
    /// `{index}`), or `DIR/` for "into DIR" with default names. Nil: the pipeline's `save PATH`,
    /// else `context.output`, else each input's `{stem}` with the format's extension.
    public var output: String?
    /// The directory relative outputs go into, made if missing; they may not leave it.
    public var outputDirectory: String?
    /// What every input's run starts from: limits, the output format, the scaling.
    public var context: RunContext
    /// How many pictures are processed at once (at least 1).
    public var jobs = 1
    /// Passes over the inputs done before, to finish a batch that was stopped or that failed in
    /// part. With a `ledger`, its last line for an input decides: done (with the outputs this run
    /// would write) passes it over even when the outputs were moved away since, failed runs it
    /// again even when files of its outputs' names exist. An input the ledger does not record is
    /// passed over when its outputs all exist as files.
    public var resume = false
    /// A folder for the ledger: a JSON line per input, `imagepipe report` reads it, and `resume`
    /// goes by it.
    public var ledger: String?
    /// Whether an output may replace a file the batch reads.
    public var overwrite = false
    /// Cancelled, the batch starts no more inputs and stops those in progress, which write
    /// nothing.
    public var cancellation = Cancellation()
    /// Called as each input starts and ends, on the thread it runs on.
    public var progress: (@Sendable (BatchProgress) -> Void)?

    // What the command adds to a batch.

    /// The folder each input was found in, by input, for `{dir}`.
    package var inputRoots: [String?] = []
    /// A list of inputs streamed rather than given (`--inputs-from`), with the folder its
    /// relative names are below.
    package var manifest: (reader: ManifestReader, base: String)?
    /// This process's share of the inputs.
    package var shard: Shard?
    /// Whether this is a batch even with one input (a folder of one picture).
    package var isBatch: Bool?
    /// Other files the run reads (the pipeline file), which no output may replace.
    package var alsoRead: [String] = []
    /// Checks every input's outputs, once named, before any work (the command's standard output).
    package var checkOutputs: (@Sendable ([[String]]) throws -> Void)?
    package var timeLimit: TimeLimit = .none
    package var memory: MemoryBudget?
    /// Where each input's trace goes (`--trace`): the folder itself for one input, else a folder
    /// an input under it, with a page that links them. A folder of other files is refused
    /// unless `overwrite`.
    public var traceDirectory: String?
    package var describe: @Sendable (any Error) -> String = { "\($0)" }
    package var warn: @Sendable (String) -> Void = { _ in }
    package var note: @Sendable (String) -> Void = { _ in }
    /// Whether to start no more inputs, beside `cancellation` (a first Ctrl-C).
    package var stopStarting: @Sendable () -> Bool = { false }
    /// What the ledger's start line says the inputs are.
    package var listName = "a batch"
    /// Called when the checks passed and the first picture is about to start.
    package var willStart: (@Sendable (_ isBatch: Bool) -> Void)?

    /// A batch writing into `outputDirectory` (with default names, or `output`'s template).
    public init(pipeline: Pipeline, inputs: [String], output: String? = nil, outputDirectory: String? = nil, context: RunContext = RunContext()) {
        self.pipeline = pipeline
        self.inputs = inputs
        self.output = output
        self.outputDirectory = outputDirectory
        self.context = context
    }

    package static let toStandardOutput = UsageError("a batch cannot write to standard output (-): the pictures would run together", remedy: .nameOutputFolder)

    /// Runs every input. Throws, before any picture is touched, when the outputs cannot be named
    /// or would collide, or the ledger cannot be written; a picture that fails is in the result.
    @discardableResult
    public func run() throws -> BatchResult {
        let batch = manifest != nil || (isBatch ?? (inputs.count > 1))
        var template = context
        if let output { template.output = output }
        if let outputDirectory { template.outputDirectory = outputDirectory }
        let cancellation = cancellation
        template.cancellation = context.cancellation.map { Cancellation(asking: { [parent = $0] in parent.isCancelled || cancellation.isCancelled }) } ?? cancellation
        if batch { template.streamAboveBytes = RunContext.streamAboveBytes(picturesAtOnce: jobs) }
        let naming = try OutputNaming(template: &template, pipeline: pipeline, batch: batch)
        let feed: InputFeed
        var timeoutSpent = 0.0 // of the time limit, by reading standard input
        if let manifest {
            if template.output == "-" || (pipeline.sink as? Save)?.path == "-" { throw Self.toStandardOutput }
            feed = InputFeed(.manifest(manifest.reader, base: manifest.base), template: template, shard: shard, batch: true, naming: naming)
        } else {
            var contexts = (inputs.isEmpty ? [""] : inputs).enumerated().map { offset, input in
                var context = template
                context.input = input.isEmpty ? nil : input
                context.output = naming.output(for: context.input, in: template)
                context.inputRoot = offset < inputRoots.count ? inputRoots[offset] : nil
                context.index = offset + 1
                return context
            }
            // The whole list is checked, not only this shard's share: two inputs of different
            // shards writing one file are refused the same way on every machine.
            let (unnamed, outputs) = try OutputCheck(pipeline: pipeline, contexts: contexts, allowOverwrite: overwrite, alsoRead: alsoRead, describe: describe).run()
            try checkOutputs?(outputs)
            if contexts.count > 1, outputs.contains(where: { $0.contains("-") }) { throw Self.toStandardOutput }
            if contexts.count == 1, ((pipeline.source as? Load)?.path ?? contexts[0].input) == "-" {
                let clock = ContinuousClock(), began = clock.now
                contexts[0].inputBytes = try StandardStreams.readStandardInput(limit: template.loadOptions.maxInputBytes, seconds: timeLimit.readingSeconds)
                timeoutSpent = (clock.now - began).inSeconds
            }
            let total = contexts.count
            if let shard { contexts = contexts.enumerated().filter { shard.contains(position: $0.offset) }.map(\.element) }
            feed = InputFeed(.contexts(contexts, total: total, problems: unnamed), template: template, shard: shard, batch: total > 1, naming: naming)
        }
        // Whose ledger it is: the shard, or the whole list as one.
        let owner = shard ?? Shard(index: 1, count: 1, engine: "option", origin: "no shard")
        let ledgerWriter = try ledger.map { try LedgerWriter(directory: $0, shard: owner) }
        // Read once the writer has checked the folder and the file (whose they are, no link),
        // and before this run adds to it.
        let recorded = try resume ? ledger.map { try LedgerReport(directory: $0, shard: owner).entries } ?? [:] : [:]
        ledgerWriter?.start(shard: owner, inputs: listName, total: feed.total)
        if let traceDirectory { try TraceWriter.claim(traceDirectory, allowOverwrite: overwrite) }
        willStart?(feed.batch)

        let counts = Locked((ended: 0, failed: 0, skipped: 0))
        let progress = progress
        var runner = BatchRunner(pipeline: pipeline, feed: feed, jobs: jobs, progress: { event in
            if case let .finished(outcome) = event {
                counts.withLock { counts in
                    counts.ended += 1
                    if outcome.error != nil { counts.failed += 1 } else if outcome.skipped { counts.skipped += 1 }
                }
            }
            progress?(event)
        }, warn: warn, note: note, describe: describe, traceDirectory: traceDirectory, resume: resume,
           stopStarting: { [stopStarting] in cancellation.isCancelled || stopStarting() }, keepsOutcomes: manifest == nil)
        runner.ledger = ledgerWriter
        runner.recorded = recorded
        runner.checkEach = manifest != nil
        runner.allowOverwrite = overwrite
        runner.memory = memory
        runner.timeLimit = timeLimit
        runner.timeoutSpent = timeoutSpent
        let outcomes = runner.run()
        let (ended, failed, skipped) = counts.withLock { $0 }
        let cancelled = cancellation.isCancelled || stopStarting()
        if let ledgerWriter {
            ledgerWriter.end(shard: owner, total: feed.total, done: ended - failed, failed: failed, stopped: cancelled, seconds: runner.elapsed)
        }
        return BatchResult(written: ended - failed - skipped, failed: failed, skipped: skipped, outcomes: outcomes, cancelled: cancelled,
                           ledgerError: ledgerWriter?.writeError, listFailure: feed.failure)
    }
}
