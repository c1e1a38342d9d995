import ImagePipe

/// `imagepipe convert INPUT OUTPUT [options]`: ImageMagick's `convert in.jpg out.png`, a run of
/// the pipeline that only writes (`run -e save INPUT -o OUTPUT`), with run's options.
struct ConvertCommand {
    let run: RunCommand

    static let help = """
        usage: imagepipe convert INPUT OUTPUT [options]

        Converts INPUT to OUTPUT's format (from its extension, or --format): the same as
        `imagepipe run -e \(PipelineArguments.convertPipeline) INPUT -o OUTPUT`, and it takes run's options (see
        imagepipe run --help). `-` is standard input or output. The picture is turned by its EXIF
        orientation and its metadata left out, as run does; for anything more, write a pipeline:
        `imagepipe run -e 'resize 50% | save quality=85' INPUT -o OUTPUT`.
        """

    static let declaration = CommandDeclaration("convert", summary: "Convert a picture to another format: imagepipe convert in.jpg out.png",
                                                help: help, options: options) { try ConvertCommand(run: RunCommand(registry: $0)).main($1) }

    /// run's options that name the pipeline or the output: convert's two names do that.
    static let runOnly = [PipelineArguments.expression.declaration, PipelineArguments.output.declaration, PipelineArguments.outDirectory.declaration]

    /// The options convert takes, for its completions: run's, less `runOnly` (which it parses
    /// only to say so).
    static let options: [any OptionDeclaring] = RunCommand.options.filter { option in
        !runOnly.contains { $0.key == option.declaration.key }
    }

    func main(_ arguments: [String]) throws -> Int32 {
        guard let parser = try OptionParser.parse(arguments, options: RunCommand.options, help: Self.help) else { return 0 }
        for option in Self.runOnly where parser.has(option) {
            throw UsageError("convert takes INPUT OUTPUT, not \(option.key); with \(option.key), write imagepipe run")
        }
        guard parser.positionals.count == 2 else {
            throw UsageError("convert takes an input and an output: imagepipe convert in.jpg out.png (got \(parser.positionals.count) names)")
        }
        let (input, output) = (parser.positionals[0], parser.positionals[1])
        return try run.main(["-e", PipelineArguments.convertPipeline, "-o", output] + parser.optionArguments() + ["--", input])
    }
}
