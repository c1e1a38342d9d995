import ImagePipe

/// The pipeline a command was given: a file named first, or text after `-e`, with `--set`
/// variables.
struct PipelineArguments {
    static let expression = CommandOption("-e", "--expression", value: "TEXT", help: "The pipeline text itself, instead of a file")
    static let set = CommandOption("--set", value: "NAME=VALUE", help: "Give $NAME in the pipeline text a value (repeatable)") { assignment in
        guard let equals = assignment.firstIndex(of: "="), equals != assignment.startIndex else {
            throw UsageError("--set needs NAME=VALUE, got '\(assignment)'")
        }
        return (name: String(assignment[..<equals]), value: String(assignment[assignment.index(after: equals)...]))
    }

    static let options: [any OptionDeclaring] = [expression, set]

    static let output = CommandOption("-o", "--output", value: "FILE", kind: .file,
                                      help: "Where to write the result: a file, DIR/ (into it), or a template")
    static let outDirectory = CommandOption("--out-dir", value: "DIR", kind: .directory, help: "The directory outputs go into (made if missing)")
    static let format = CommandOption("--format", value: "FORMAT", kind: .choices(ImageFormat.encodable.map(\.rawValue)),
                                      help: "Output format (\(ImageFormat.encodable.map(\.rawValue).joined(separator: ", "))); default: from the extension") { name in
        guard let format = ImageFormat(outputName: name) else {
            throw UsageError("unknown format '\(name)': use one of \(ImageFormat.encodable.map(\.rawValue).joined(separator: ", "))")
        }
        return format
    }

    /// How pictures are decoded and scaled: shared by `run`, `explain` and `serve`, so a plan
    /// shows what the run will do.
    static let scaling = CommandOption("--scaling", value: "MODE", kind: .choices(ScalingMode.allCases.map(\.rawValue)), help: """
        Speed against quality: fast (tightest JPEG DCT reduction, then
        lanczos3), good (2× headroom, then lanczos3; the default) or best
        (full decode, then lanczos3)
        """) { name in
        guard let mode = ScalingMode(rawValue: name) else {
            throw UsageError("unknown scaling '\(name)': use one of \(ScalingMode.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        return mode
    }
    static let maxPixels = CommandOption("--max-pixels", value: "N", help: """
        Refuse pictures with more pixels (default \(LoadOptions.defaultMaxPixels); 0 = no limit);
        an animation's frames count together
        """) { limit in
        guard let pixels = Int(limit), pixels >= 0 else { throw UsageError("--max-pixels needs a whole number ≥ 0, got '\(limit)'") }
        return pixels
    }
    static let maxFrames = CommandOption("--max-frames", value: "N",
                                         help: "Refuse animations with more frames to decode (default \(LoadOptions.defaultMaxFrames); 0 = no limit)") { limit in
        guard let frames = Int(limit), frames >= 0 else { throw UsageError("--max-frames needs a whole number ≥ 0, got '\(limit)'") }
        return frames
    }
    static let noShrinkOnLoad = CommandFlag("--no-shrink-on-load", help: """
        Always decode at full size (by default a JPEG whose first stage
        only shrinks is decoded at 1/2, 1/4 or 1/8 in the DCT)
        """)

    static let decodeOptions: [any OptionDeclaring] = [scaling, maxPixels, maxFrames, noShrinkOnLoad]

    /// A run context with the output and decoding options of the command line.
    static func outputContext(_ parser: OptionParser) throws -> RunContext {
        var context = RunContext(output: parser.text(of: output), outputDirectory: parser.text(of: outDirectory))
        if let mode = try parser.value(of: scaling) { context.loadOptions.scaling = mode }
        if let pixels = try parser.value(of: maxPixels) { context.loadOptions.maxPixels = pixels == 0 ? nil : pixels }
        if let frames = try parser.value(of: maxFrames) { context.loadOptions.maxFrames = frames == 0 ? nil : frames }
        if parser.has(noShrinkOnLoad) { context.loadOptions.shrinkOnLoad = false }
        if let format = try parser.value(of: Self.format) { context.outputFormat = format }
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
        if let expression = parser.text(of: Self.expression) {
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
        for assignment in try parser.values(of: Self.set) { variables[assignment.name] = assignment.value }
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
