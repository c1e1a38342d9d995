import ImagePipe
#if canImport(Glibc)
import Glibc
#endif

/// `imagepipe run PIPELINE INPUT -o OUTPUT`
struct RunCommand {
    let registry: Registry

    static let help = """
        usage: imagepipe run PIPELINE [INPUT] [-o OUTPUT] [options]
               imagepipe run -e 'TEXT' [INPUT] [-o OUTPUT] [options]

        Runs a pipeline on a picture. When the pipeline does not start with `load FILE`, it reads
        INPUT; when it does not end with `save FILE`, it writes OUTPUT. `-` reads standard input
        or writes standard output.

        Options:
          -e, --expression TEXT  The pipeline text itself, instead of a file
          -o, --output FILE      Where to write the result
          --format FORMAT        Output format (png, jpeg, tiff, bmp, ico, webp); default: from the extension
          --set NAME=VALUE       Give $NAME in the pipeline text a value (repeatable)
          --max-pixels N         Refuse pictures with more pixels (default \(LoadOptions.defaultMaxPixels); 0 = no limit)
          --overwrite            Allow the output to replace the input file
          -h, --help             Show this help
        """

    func main(_ arguments: [String]) throws -> Int32 {
        var parser = OptionParser(options: PipelineArguments.options + [
            .init(names: ["-o", "--output"], takesValue: true),
            .init(names: ["--format"], takesValue: true),
            .init(names: ["--max-pixels"], takesValue: true),
            .init(names: ["--overwrite"], takesValue: false),
            .init(names: ["-h", "--help"], takesValue: false),
        ])
        try parser.parse(arguments)
        if parser.has("--help") {
            Console.output(Self.help)
            return 0
        }
        let pipelineArguments = try PipelineArguments(parser)
        guard pipelineArguments.remaining.count <= 1 else {
            throw UsageError("one input at a time: got \(pipelineArguments.remaining.count) (\(pipelineArguments.remaining.joined(separator: " ")))")
        }
        var context = RunContext(input: pipelineArguments.remaining.first, output: parser.last("--output"),
                                 warn: { Console.warning($0) })
        if let name = parser.last("--format") {
            guard let format = ImageFormat(name: name) else {
                throw UsageError("unknown format '\(name)': use one of \(ImageFormat.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            context.outputFormat = format
        }
        if let limit = parser.last("--max-pixels") {
            guard let pixels = Int(limit), pixels >= 0 else { throw UsageError("--max-pixels needs a whole number ≥ 0, got '\(limit)'") }
            context.loadOptions.maxPixels = pixels == 0 ? nil : pixels
        }
        let pipeline = try pipelineArguments.compile(with: registry)
        if !parser.has("--overwrite") { try refuseToOverwriteInput(pipeline, context) }
        if ((pipeline.source as? Load)?.path ?? context.input) == "-" { context.inputBytes = try StandardStreams.readStandardInput() }
        try pipeline.run(in: context)
        return 0
    }

    /// A run never replaces its own input unless asked to.
    private func refuseToOverwriteInput(_ pipeline: Pipeline, _ context: RunContext) throws {
        guard let load = pipeline.source as? Load, let save = pipeline.sink as? Save,
              let input = load.path ?? context.input, let output = save.path ?? context.output,
              input != "-", output != "-" else { return }
        var inputStatus = stat(), outputStatus = stat()
        guard stat(input, &inputStatus) == 0, stat(output, &outputStatus) == 0 else { return }
        if inputStatus.st_dev == outputStatus.st_dev, inputStatus.st_ino == outputStatus.st_ino {
            throw UsageError("the output '\(output)' is the input file; give --overwrite to replace it")
        }
    }
}
