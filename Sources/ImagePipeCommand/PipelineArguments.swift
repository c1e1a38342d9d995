import ImagePipe

/// The pipeline a command was given: a file named first, or text after `-e`, with `--set`
/// variables.
struct PipelineArguments {
    static let options: [OptionParser.Option] = [
        .init(names: ["-e", "--expression"], takesValue: true),
        .init(names: ["--set"], takesValue: true),
    ]

    /// Where a run writes: shared by `run` and `explain`.
    static let outputOptions: [OptionParser.Option] = [
        .init(names: ["-o", "--output"], takesValue: true),
        .init(names: ["--out-dir"], takesValue: true),
        .init(names: ["--format"], takesValue: true),
    ]

    /// A run context with the output options of the command line.
    static func outputContext(_ parser: OptionParser) throws -> RunContext {
        var context = RunContext(output: parser.last("--output"), outputDirectory: parser.last("--out-dir"))
        if let name = parser.last("--format") {
            guard let format = ImageFormat(name: name) else {
                throw UsageError("unknown format '\(name)': use one of \(ImageFormat.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            context.outputFormat = format
        }
        return context
    }

    let text: String
    let file: String
    let variables: [String: String]
    /// The positionals after the pipeline file.
    let remaining: [String]

    init(_ parser: OptionParser) throws {
        var positionals = parser.positionals
        if let expression = parser.last("--expression") {
            text = expression
            file = "<inline>"
        } else {
            guard !positionals.isEmpty else { throw UsageError("no pipeline: give a pipeline file or -e 'TEXT'") }
            file = positionals.removeFirst()
            text = try TextFile.read(file)
        }
        remaining = positionals
        var variables: [String: String] = [:]
        for assignment in parser.all("--set") {
            guard let equals = assignment.firstIndex(of: "="), equals != assignment.startIndex else {
                throw UsageError("--set needs NAME=VALUE, got '\(assignment)'")
            }
            variables[String(assignment[..<equals])] = String(assignment[assignment.index(after: equals)...])
        }
        self.variables = variables
    }

    func compile(with registry: Registry) throws -> Pipeline {
        try PipelineCompiler(registry: registry).compile(text, file: file, variables: variables)
    }
}
