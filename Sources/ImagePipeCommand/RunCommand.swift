import ImagePipe
#if canImport(Glibc)
import Glibc
#endif

/// `imagepipe run PIPELINE INPUT… [-o OUTPUT | --out-dir DIR]`, or with `--inputs-from LIST`;
/// the whole batch or one shard of it.
struct RunCommand {
    let registry: Registry

    static let help = """
        usage: imagepipe run PIPELINE [INPUT…] [-o OUTPUT] [--out-dir DIR] [options]
               imagepipe run -e 'TEXT' [INPUT…] [-o OUTPUT] [--out-dir DIR] [options]
               imagepipe run PIPELINE --inputs-from LIST [--shard K/N] [--ledger DIR] [options]

        Runs a pipeline on pictures. When the pipeline does not start with `load FILE`, it reads
        each INPUT (a file, `-` for standard input, or a directory of pictures); when it does not
        end with `save FILE`, it writes OUTPUT (`-` for standard output).

        Every name after the pipeline is an input: write the result with -o FILE, as in
        `imagepipe run -e 'fit 64' in.jpg -o out.png`, not as a second name.

        Batches: several inputs or a directory need --out-dir DIR, or output names from a
        template given to -o or to save: {stem} {name} {ext} {dir} {index} (standard input's
        stem is `stdin`). Relative outputs go into --out-dir (with a template alone: the current
        directory) and may not leave it. Without a name, each output is DIR/{dir}/{stem}.EXT:
        EXT is the --format's (jpg, png, tif, webp…), else the input's own extension when that
        format can be written, else png (a HEIC is written as PNG). `-o thumbs/` means "into
        thumbs/" with those names; so do `-o thumbs` naming an existing folder and --out-dir
        with one input and no -o. An extension
        that names another format than --format or save format= is an error. A batch cannot
        write to standard output. A file that fails is reported and the others go on; the exit
        status is then 1.

        Ctrl-C: a batch finishes the files in progress and starts no more (a second stops at
        once); one picture stops at once. Nothing half-written is left; the exit status is 130.
        SIGTERM gives up the files in progress and ends within a second (exit status 143).

        Many machines: --shard K/N (or a Slurm array, a Kubernetes Indexed Job, GNU parallel)
        processes one share of the inputs, the same share on every machine; --ledger records it,
        --skip-existing resumes it (an input the ledger records as done is passed over even when
        its outputs were moved away, one recorded as failed is made again), and
        `imagepipe report` merges the ledgers.

        Options:
        """ + "\n" + OptionTable.text(options)

    static let declaration = CommandDeclaration("run", summary: "Run a pipeline on a picture",
                                                help: help, options: options) { try RunCommand(registry: $0).main($1) }

    /// Standard output holds one picture: not several (a batch, or tee and save both writing
    /// `-`), and not a picture followed by `--json` lines. `outputs` are each input's, as
    /// `OutputCheck` named them (none for an input whose outputs cannot be named: that is
    /// already its failure).
    static func checkStandardOutput(outputs: [[String]], json: Bool) throws {
        for named in outputs {
            let count = named.filter { $0 == "-" }.count
            guard count > 0 else { continue }
            if outputs.count > 1 { throw Batch.toStandardOutput }
            if count > 1 { throw UsageError("only one output can go to standard output (-)") }
            if json { throw UsageError("--json cannot go with a picture on standard output (-): both would be written there; drop --json, or write to a file") }
        }
    }

    static func exists(_ path: String) -> Bool {
        var status = stat()
        return stat(path, &status) == 0
    }

    static let recursive = CommandFlag("-r", "--recursive", help: "Search directories given as inputs recursively")
    static let jobs = CommandOption("-j", "--jobs", value: "N", help: """
        Pictures processed at once (default: the number of cores; at most
        4 times that)
        """) { text in
        // More threads than that only wait on each other, each holding a picture in memory.
        let cores = max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
        guard let count = Int(text), (1...4 * cores).contains(count) else {
            throw UsageError("--jobs needs a whole number from 1 to \(4 * cores) (4 times the \(cores) cores), got '\(text)'")
        }
        return count
    }
    static let overwrite = CommandFlag("--overwrite", help: "Allow an output to replace an input file")
    static let skipExisting = CommandFlag("--skip-existing", help: """
        Pass over inputs done before (to resume a batch): by the --ledger's
        last line for each, else when its outputs all exist
        """)
    static let trace = CommandOption("--trace", value: "DIR", kind: .directory, help: "Write the picture after every stage, and DIR/index.html showing them")
    static let json = CommandFlag("--json", help: "One JSON object per file on standard output (not with -o -)")
    static let quiet = CommandFlag("-q", "--quiet", help: """
        No progress lines and no closing summary; failures are still
        reported, and so is a stop by Ctrl-C
        """)

    /// In the order the help lists them.
    static let options: [any OptionDeclaring] = [
        PipelineArguments.expression, PipelineArguments.output, PipelineArguments.outDirectory, recursive, jobs,
        PipelineArguments.format, PipelineArguments.set,
    ] + PipelineArguments.decodeOptions + LimitOptions.options + [LimitOptions.maxMemory, overwrite, skipExisting, trace]
        + ShardOptions.options + [ShardOptions.ledger, json, quiet]

    func main(_ arguments: [String]) throws -> Int32 {
        guard let parser = try OptionParser.parse(arguments, options: Self.options, help: Self.help) else { return 0 }
        let pipelineArguments = try PipelineArguments(parser, command: "run")
        let pipeline = try pipelineArguments.compile(with: registry)
        let positionals = pipelineArguments.remaining
        if positionals.count == 2, !parser.has(PipelineArguments.output), positionals[1] != "-", !Self.exists(positionals[1]) {
            // ImageMagick's `convert in.jpg out.png`: here every positional is an input.
            throw UsageError("'\(positionals[1])' does not exist, and every name after the pipeline is an input; to write the result there, give -o \(positionals[1])")
        }
        var limits = LoadOptions() // for the formats a directory is searched for
        try LimitOptions.apply(parser, to: &limits)
        let sharding = try ShardOptions(parser)
        let manifest = try sharding.openManifest()
        var inputs: [BatchInput] = [], sawDirectory = false, passedOver: [BatchInput.PassedOver] = []
        if manifest != nil {
            guard positionals.isEmpty else { throw UsageError("--inputs-from takes the place of INPUT arguments: give one or the other") }
            if (pipeline.source as? Load)?.path != nil { throw UsageError("the pipeline loads one file itself, so --inputs-from has nothing to give it") }
        } else {
            (inputs, sawDirectory, passedOver) = try BatchInput.collect(positionals, recursive: parser.has(Self.recursive), allowed: limits.allowedFormats)
        }
        let batch = inputs.count > 1 || sawDirectory || manifest != nil
        let shard = try sharding.selection.resolve(batch: batch)
        if shard != nil { inputs = ShardOptions.stableOrder(inputs) }
        for skipped in passedOver { Console.warning(skipped.message) }
        if sawDirectory && inputs.isEmpty {
            if passedOver.contains(where: \.isFailure) { return 1 } // said above
            throw UsageError("no pictures found in \(positionals.joined(separator: ", "))")
        }
        guard inputs.filter({ $0.path == "-" }).count <= (inputs.count == 1 ? 1 : 0) else {
            throw UsageError("standard input (-) can only be the one input")
        }
        if inputs.isEmpty, manifest == nil, let load = pipeline.source as? Load, load.path == nil {
            throw UsageError("\(Load.schema.name): no input: name a file after the pipeline, or give load a path")
        }

        var template = try PipelineArguments.outputContext(parser)
        try LimitOptions.apply(parser, to: &template.loadOptions)
        let timeLimit = try LimitOptions.timeLimit(parser)
        let cores = max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
        let jobs = try parser.value(of: Self.jobs) ?? cores
        var memory: MemoryBudget? = MemoryBudget(limit: MemoryBudget.defaultLimit)
        if let bytes = try parser.value(of: LimitOptions.maxMemory) { memory = bytes == 0 ? nil : MemoryBudget(limit: bytes) }
        let reporter = ProgressReporter(total: manifest == nil ? Shard.share(of: max(1, inputs.count), in: shard) : nil,
                                        quiet: parser.has(Self.quiet), json: parser.has(Self.json), batch: batch, shard: shard)
        template.warn = { reporter.warn($0) }
        let interruption = Interruption()
        let json = parser.has(Self.json)
        var run = Batch(pipeline: pipeline, inputs: inputs.map(\.path), context: template)
        run.inputRoots = inputs.map(\.root)
        run.manifest = manifest.map { ($0, sharding.baseDirectory) }
        run.shard = shard
        run.isBatch = batch
        run.jobs = jobs
        run.memory = memory
        run.timeLimit = timeLimit
        run.resume = parser.has(Self.skipExisting)
        run.overwrite = parser.has(Self.overwrite)
        run.ledger = parser.text(of: ShardOptions.ledger)
        run.listName = manifest?.name ?? "the command line"
        run.traceDirectory = parser.text(of: Self.trace)
        run.alsoRead = pipelineArguments.file == "<inline>" ? [] : [pipelineArguments.file]
        run.checkOutputs = { try Self.checkStandardOutput(outputs: $0, json: json) }
        run.cancellation = interruption.cancellation
        run.stopStarting = { interruption.received != nil }
        run.describe = { RemedyWording.text(for: $0) }
        run.warn = { reporter.warn($0) }
        run.note = { reporter.note($0) }
        run.progress = { if case let .finished(outcome) = $0 { reporter.finished(outcome) } }
        let quiet = parser.has(Self.quiet)
        run.willStart = { isBatch in
            if let shard, !quiet { Console.diagnostics("imagepipe: \(shard.description)") }
            interruption.install(onePicture: !isBatch)
        }
        let result = try run.run()
        if let failure = result.listFailure { Console.error(failure) }
        let stopped = interruption.received
        let failed = reporter.summary(stoppedEarly: stopped != nil).failed
        if let problem = result.ledgerError { Console.error(problem) }
        if let stopped { return 128 + stopped }
        return failed > 0 || result.listFailure != nil || result.ledgerError != nil || passedOver.contains(where: \.isFailure) ? 1 : 0
    }
}
