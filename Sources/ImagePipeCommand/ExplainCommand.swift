import ImagePipe

/// `imagepipe explain PIPELINE INPUT`: the plan, from the picture's header, without decoding.
struct ExplainCommand {
    let registry: Registry

    static let help = """
        usage: imagepipe explain PIPELINE INPUT [-o OUTPUT] [options]
               imagepipe explain -e 'TEXT' INPUT [-o OUTPUT] [options]

        Shows what a run would do to INPUT, read from its header alone: each stage with the size
        it receives and gives, its scale factors, windows and circles, and where outputs go.
        No pixel is decoded and nothing is written.

        Options:
          -e, --expression TEXT  The pipeline text itself, instead of a file
          -o, --output FILE      The output a run would write
          --out-dir DIR          The directory a run would write into
          --format FORMAT        The output format a run would use
          --set NAME=VALUE       Give $NAME in the pipeline text a value (repeatable)
        \(PipelineArguments.decodeHelp)
        \(LimitOptions.help)
          -h, --help             Show this help
        """

    func main(_ arguments: [String]) throws -> Int32 {
        guard let parser = try OptionParser.parse(arguments, options: PipelineArguments.options + PipelineArguments.outputOptions + PipelineArguments.decodeOptions + LimitOptions.options, help: Self.help) else { return 0 }
        let pipelineArguments = try PipelineArguments(parser)
        let pipeline = try pipelineArguments.compile(with: registry)
        guard pipelineArguments.remaining.count <= 1 else { throw UsageError("explain takes one input") }
        var context = try PipelineArguments.outputContext(parser)
        context.input = pipelineArguments.remaining.first
        try LimitOptions.apply(parser, to: &context.loadOptions)
        Console.output(try explanation(of: pipeline, in: context))
        return 0
    }

    func explanation(of pipeline: Pipeline, in context: RunContext) throws -> String {
        let plan = try pipeline.plan(in: context)
        var rows: [(String, String, String)] = []
        var header = ""
        if let load = pipeline.source as? Load, let path = load.path ?? context.input, path != "-" {
            let file = try ImageHeader.read(path: path, options: context.loadOptions)
            header = "\(path): \(file.format) \(file.storedSize)"
            if let note = file.animationNote { header += ", \(note)" }
            if file.orientation != 1 { header += ", EXIF orientation \(file.orientation)" }
            let turned = load.autoOrient && file.swapsSides ? ", turned upright" : ""
            var how = "decoded at full size\(turned); scaling \(plan.scaling.summary)"
            if plan.shrinksOnLoad, let wanted = plan.decodeAtLeast, let first = plan.steps.first {
                let denominator = Int((Double(plan.sourceSize.width) / Double(plan.decodeSize.width)).rounded())
                how = "decoded at 1/\(denominator) as \(plan.decodeSize)\(turned) (shrink-on-load: \(first.stage.stageSchema.name) wants at least \(wanted)); scaling \(plan.scaling.summary)"
            }
            rows.append((pipeline.source.text, "→ \(plan.sourceSize)", how))
        } else {
            rows.append((pipeline.source.text, "→ \(plan.sourceSize)", ""))
        }
        // After a stage whose size depends on the pixels (trim), sizes are estimates: "≤" on
        // that stage's output, "~" on everything after it.
        let estimated = plan.firstUpperBoundStep ?? plan.steps.count
        for (index, step) in plan.steps.enumerated() {
            var what = try step.stage.explanation(for: step.input) ?? ""
            if let writer = step.stage as? any Sink { what = "writes \(try writer.destination(in: context))" }
            let input = index > estimated ? "~\(step.input)" : "\(step.input)"
            let output = index > estimated ? "~\(step.output)" : index == estimated ? "≤\(step.output)" : "\(step.output)"
            rows.append((step.stage.text, "\(input) → \(output)", what))
        }
        let destination = (try? pipeline.sink.destination(in: context)) ?? "(no output given)"
        rows.append((pipeline.sink.text, "\(plan.isExact ? "" : "~")\(plan.outputSize) → \(destination)", ""))
        let textWidth = rows.map(\.0.count).max() ?? 0
        let sizeWidth = rows.map(\.1.count).max() ?? 0
        let lines = rows.enumerated().map { index, row in
            "\(index)  \(row.0.padding(to: textWidth))  \(row.1.padding(to: sizeWidth))  \(row.2)".trimmingTrailingSpaces()
        }
        return ([header].filter { !$0.isEmpty } + lines).joined(separator: "\n")
    }
}

extension String {
    func trimmingTrailingSpaces() -> String {
        var text = self
        while text.last == " " { text.removeLast() }
        return text
    }
}
