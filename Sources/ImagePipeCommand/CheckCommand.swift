import ImagePipe

/// `imagepipe check PIPELINE`: validates the text; exit 0 or 2.
struct CheckCommand {
    let registry: Registry

    static let help = """
        usage: imagepipe check PIPELINE
               imagepipe check -e 'TEXT'

        Parses and validates a pipeline without reading any picture, then prints its canonical
        text. Exit status 0 when it is valid, 2 when it is not.

        Options:
        """ + "\n" + OptionTable.text(options)

    static let declaration = CommandDeclaration("check", summary: "Check a pipeline's text without running it",
                                                help: help, options: options) { try CheckCommand(registry: $0).main($1) }

    static let options = PipelineArguments.options

    func main(_ arguments: [String]) throws -> Int32 {
        guard let parser = try OptionParser.parse(arguments, options: Self.options, help: Self.help) else { return 0 }
        let pipelineArguments = try PipelineArguments(parser, command: "check")
        guard pipelineArguments.remaining.isEmpty else {
            throw UsageError("check takes only a pipeline; unexpected '\(pipelineArguments.remaining[0])'")
        }
        Console.output(try pipelineArguments.compile(with: registry).text)
        return 0
    }
}
