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

    /// How pictures are decoded and scaled: shared by `run` and `explain`, so a plan shows what
    /// the run will do.
    static let decodeOptions: [OptionParser.Option] = [
        .init(names: ["--scaling"], takesValue: true),
        .init(names: ["--max-pixels"], takesValue: true),
        .init(names: ["--max-frames"], takesValue: true),
        .init(names: ["--no-shrink-on-load"], takesValue: false),
    ]

    /// The help lines of `decodeOptions`.
    static let decodeHelp = """
          --scaling MODE         Speed against quality: fast (tightest JPEG DCT reduction, then
                                 lanczos3), good (2× headroom, then lanczos3; the default) or best
                                 (full decode, then lanczos3)
          --max-pixels N         Refuse pictures with more pixels (default \(LoadOptions.defaultMaxPixels); 0 = no limit);
                                 an animation's frames count together
          --max-frames N         Refuse animations with more frames to decode (default \(LoadOptions.defaultMaxFrames); 0 = no limit)
          --no-shrink-on-load    Always decode at full size (by default a JPEG whose first stage
                                 only shrinks is decoded at 1/2, 1/4 or 1/8 in the DCT)
        """

    /// A run context with the output and decoding options of the command line.
    static func outputContext(_ parser: OptionParser) throws -> RunContext {
        var context = RunContext(output: parser.last("--output"), outputDirectory: parser.last("--out-dir"))
        if let name = parser.last("--scaling") {
            guard let mode = ScalingMode(rawValue: name) else {
                throw UsageError("unknown scaling '\(name)': use one of \(ScalingMode.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            context.loadOptions.scaling = mode
        }
        if let limit = parser.last("--max-pixels") {
            guard let pixels = Int(limit), pixels >= 0 else { throw UsageError("--max-pixels needs a whole number ≥ 0, got '\(limit)'") }
            context.loadOptions.maxPixels = pixels == 0 ? nil : pixels
        }
        if let limit = parser.last("--max-frames") {
            guard let frames = Int(limit), frames >= 0 else { throw UsageError("--max-frames needs a whole number ≥ 0, got '\(limit)'") }
            context.loadOptions.maxFrames = frames == 0 ? nil : frames
        }
        if parser.has("--no-shrink-on-load") { context.loadOptions.shrinkOnLoad = false }
        if let name = parser.last("--format") {
            guard let format = ImageFormat(name: name) else {
                throw UsageError("unknown format '\(name)': use one of \(ImageFormat.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            context.outputFormat = format
        }
        return context
    }

    /// The pipeline that converts a picture to the output's format and nothing else.
    static let convertPipeline = "save"

    let text: String
    let file: String
    let variables: [String: String]
    /// The positionals after the pipeline file.
    let remaining: [String]

    /// The pipeline of `command`'s arguments in `parser`.
    init(_ parser: OptionParser, command: String) throws {
        var positionals = parser.positionals
        if let expression = parser.last("--expression") {
            text = expression
            file = "<inline>"
        } else {
            guard !positionals.isEmpty else { throw UsageError("no pipeline: give a pipeline file or -e 'TEXT'") }
            file = positionals.removeFirst()
            // A picture where the pipeline goes is the picture to convert: the same arguments
            // after a pipeline that does nothing but write.
            text = try TextFile.read(file, converting: "imagepipe " + ShellWords.line([command, "-e", Self.convertPipeline] + parser.arguments))
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
        try Self.checkUsed(variables, in: text)
    }

    /// Refuses a `--set` name the text never refers to (a misspelt `--set SIZ=…` would leave
    /// `${SIZE:-…}` at its default without a word), suggesting the closest name it uses.
    static func checkUsed(_ variables: [String: String], in text: String) throws {
        guard !variables.isEmpty else { return }
        let used = Lexer.variableNames(in: text).sorted()
        for name in variables.keys.sorted() where !used.contains(name) {
            let close = used.first { $0.lowercased() == name.lowercased() } ?? Suggestion.closest(to: name, in: used)
            let hint = close.map { "; did you mean \($0)?" }
                ?? (used.isEmpty ? "; it uses no variables" : "; it uses " + used.map { "$\($0)" }.joined(separator: ", "))
            throw UsageError("--set \(name): the pipeline never uses $\(name)\(hint)")
        }
    }

    func compile(with registry: Registry) throws -> Pipeline {
        try PipelineCompiler(registry: registry).compile(text, file: file, variables: variables)
    }
}
