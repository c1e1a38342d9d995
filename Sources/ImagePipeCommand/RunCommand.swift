import ImagePipe
#if canImport(Glibc)
import Glibc
#endif

/// `imagepipe run PIPELINE INPUT… [-o OUTPUT | --out-dir DIR]`
struct RunCommand {
    let registry: Registry

    static let help = """
        usage: imagepipe run PIPELINE [INPUT…] [-o OUTPUT] [--out-dir DIR] [options]
               imagepipe run -e 'TEXT' [INPUT…] [-o OUTPUT] [--out-dir DIR] [options]

        Runs a pipeline on pictures. When the pipeline does not start with `load FILE`, it reads
        each INPUT (a file, `-` for standard input, or a directory of pictures); when it does not
        end with `save FILE`, it writes OUTPUT (`-` for standard output).

        Batches: several inputs or a directory need output names from a template, given to -o
        or to save: {stem} {name} {ext} {dir} {index} (default {dir}/{stem}.{ext}). Relative
        outputs go into --out-dir (default: the current directory) and may not leave it.
        A file that fails is reported and the others go on; the exit status is then 1.

        Options:
          -e, --expression TEXT  The pipeline text itself, instead of a file
          -o, --output FILE      Where to write the result: a file, or a template in a batch
          --out-dir DIR          The directory outputs go into (made if missing)
          -r, --recursive        Search directories given as inputs recursively
          -j, --jobs N           Pictures processed at once (default: the number of cores)
          --format FORMAT        Output format (png, jpeg, tiff, bmp, ico, webp); default: from the extension
          --set NAME=VALUE       Give $NAME in the pipeline text a value (repeatable)
        \(PipelineArguments.decodeHelp)
        \(LimitOptions.help)
          --timeout SECONDS      The most one picture may take; past it the picture fails and a batch
                                 goes on (default \(Int(Self.defaultTimeout)); 0 = no limit)
          --overwrite            Allow an output to replace an input file
          --skip-existing        Pass over inputs whose outputs all exist (to resume a batch)
          --trace DIR            Write the picture after every stage, and DIR/index.html showing them
          --json                 One JSON object per file on standard output
          -q, --quiet            No progress and no summary; failures are still reported
          -h, --help             Show this help
        """

    /// Seconds one picture may take by default: generous, since a 100-megapixel PNG takes seconds
    /// to encode, yet it ends a hostile decode that would never finish.
    static let defaultTimeout = 60.0

    /// The output name for batch inputs when neither -o nor save gives one.
    static let defaultTemplate = "{dir}/{stem}.{ext}"

    func main(_ arguments: [String]) throws -> Int32 {
        guard let parser = try OptionParser.parse(arguments, options: PipelineArguments.options + PipelineArguments.outputOptions + PipelineArguments.decodeOptions + LimitOptions.options + [
            .init(names: ["-r", "--recursive"], takesValue: false),
            .init(names: ["-j", "--jobs"], takesValue: true),
            .init(names: ["--timeout"], takesValue: true),
            .init(names: ["--overwrite"], takesValue: false),
            .init(names: ["--skip-existing"], takesValue: false),
            .init(names: ["--trace"], takesValue: true),
            .init(names: ["--json"], takesValue: false),
            .init(names: ["-q", "--quiet"], takesValue: false),
        ], help: Self.help) else { return 0 }
        let pipelineArguments = try PipelineArguments(parser)
        let pipeline = try pipelineArguments.compile(with: registry)
        var limits = LoadOptions() // for the formats a directory is searched for
        try LimitOptions.apply(parser, to: &limits)
        let (inputs, sawDirectory) = try BatchInput.collect(pipelineArguments.remaining, recursive: parser.has("--recursive"), allowed: limits.allowedFormats)
        let batch = inputs.count > 1 || sawDirectory
        if sawDirectory && inputs.isEmpty { throw UsageError("no pictures found in \(pipelineArguments.remaining.joined(separator: ", "))") }
        guard inputs.filter({ $0.path == "-" }).count <= (inputs.count == 1 ? 1 : 0) else {
            throw UsageError("standard input (-) can only be the one input")
        }

        var template = try PipelineArguments.outputContext(parser)
        try LimitOptions.apply(parser, to: &template.loadOptions)
        var timeout: Double? = Self.defaultTimeout
        if let text = parser.last("--timeout") {
            guard let seconds = Double(text), seconds >= 0, seconds.isFinite else { throw UsageError("--timeout needs a number of seconds ≥ 0, got '\(text)'") }
            timeout = seconds == 0 ? nil : seconds
        }
        var jobs = Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))
        if let text = parser.last("--jobs") {
            guard let count = Int(text), count >= 1 else { throw UsageError("--jobs needs a whole number ≥ 1, got '\(text)'") }
            jobs = count
        }
        if batch {
            if template.outputDirectory == nil { template.outputDirectory = "." }
            if template.output == nil, (pipeline.sink as? Save)?.path == nil { template.output = Self.defaultTemplate }
        }

        let reporter = ProgressReporter(total: inputs.count, quiet: parser.has("--quiet"), json: parser.has("--json"), batch: batch)
        template.warn = { reporter.warn($0) }
        var contexts = (inputs.isEmpty ? [BatchInput(path: "", root: nil)] : inputs).enumerated().map { offset, input in
            var context = template
            context.input = input.path.isEmpty ? nil : input.path
            context.inputRoot = input.root
            context.index = offset + 1
            return context
        }
        try OutputCheck(pipeline: pipeline, contexts: contexts, allowOverwrite: parser.has("--overwrite")).run()
        if contexts.count == 1, ((pipeline.source as? Load)?.path ?? contexts[0].input) == "-" {
            contexts[0].inputBytes = try StandardStreams.readStandardInput(limit: template.loadOptions.maxInputBytes)
        }

        let interruption = Interruption()
        interruption.install()
        BatchRunner(pipeline: pipeline, contexts: contexts, jobs: jobs, reporter: reporter, traceDirectory: parser.last("--trace"),
                    skipExisting: parser.has("--skip-existing"), interruption: interruption, timeout: timeout).run()
        let stopped = interruption.received
        let (_, failed) = reporter.summary(stoppedEarly: stopped != nil)
        if let stopped { return 128 + stopped }
        return failed > 0 ? 1 : 0
    }
}
