import ImagePipe

/// `imagepipe explain PIPELINE INPUT`: the plan, from the picture's header, without decoding.
struct ExplainCommand {
    let registry: Registry

    static let help = """
        usage: imagepipe explain PIPELINE INPUT [-o OUTPUT] [options]
               imagepipe explain -e 'TEXT' INPUT [-o OUTPUT] [options]

        Shows what a run would do to INPUT (a file, or `-` for standard input), read from its
        header alone: each stage with the size it receives and gives, its scale factors, windows
        and circles, and where outputs go. No pixel is decoded and nothing is written. It takes
        run's options for naming outputs, decoding and limits, so the plan is the run's.
        With --pixels, the picture is decoded and transformed too (still writing nothing), and
        what stages decide from the pixels is shown: the window a smart crop chose.

        Options:
        """ + "\n" + OptionTable.text(options) + "\n\n" + """
        With a shard (--shard, or an engine's variables and a list), the first line says which
        shard and where it came from; with --inputs-from and no INPUT, the plan is for the
        shard's first input.
        """

    static let declaration = CommandDeclaration("explain", summary: "Show what a pipeline would do to a picture, from its header alone",
                                                help: help, options: options) { try ExplainCommand(registry: $0).main($1) }

    /// Bumped whenever the JSON's shape changes.
    static let schemaVersion = 1

    static let pixels = CommandFlag("--pixels", help: """
        Also decode and transform (writing nothing) to show what stages
        decide from the pixels (position=attention|entropy's window)
        """)
    static let json = CommandFlag("--json", help: "The plan as one JSON object, with \"schemaVersion\": \(schemaVersion)")

    /// run's options for naming outputs, decoding and limits, so the plan is the run's.
    static let options: [any OptionDeclaring] = [
        PipelineArguments.expression,
        PipelineArguments.output.describing("The output a run would write (`DIR/`: into DIR, named as run names them)"),
        PipelineArguments.outDirectory.describing("The directory a run would write into"),
        PipelineArguments.format.describing("The output format a run would use"),
        PipelineArguments.set,
    ] + PipelineArguments.decodeOptions + LimitOptions.options + [pixels, json] + ShardOptions.options

    func main(_ arguments: [String]) throws -> Int32 {
        guard let parser = try OptionParser.parse(arguments, options: Self.options, help: Self.help) else { return 0 }
        let pipelineArguments = try PipelineArguments(parser, command: "explain")
        let pipeline = try pipelineArguments.compile(with: registry)
        guard pipelineArguments.remaining.count <= 1 else { throw UsageError("explain takes one input") }
        var context = try PipelineArguments.outputContext(parser)
        context.input = pipelineArguments.remaining.first
        try LimitOptions.apply(parser, to: &context.loadOptions)
        let timeout = try LimitOptions.timeout(parser)
        let sharding = try ShardOptions(parser)
        let manifest = try sharding.openManifest()
        let shard = try sharding.selection.resolve(batch: manifest != nil)
        var lines: [String] = []
        var shardFields: [(String, JSONValue)] = shard.map { [("shard", $0.json)] } ?? []
        if let manifest, context.input == nil {
            // The shard's share and its first input: the list is read to the end, streamed.
            let feed = InputFeed(.manifest(manifest, base: sharding.baseDirectory), template: context, shard: shard, batch: true)
            var first: InputFeed.Item?
            var count = 0
            while let item = feed.next() {
                if first == nil { first = item }
                count += 1
            }
            if let failure = feed.failure { throw UsageError(failure) }
            let total = feed.total ?? count
            let share = "\(count) of \(total) inputs" + (first.map { "; the first, #\($0.context.index):" } ?? "")
            lines.append(shard.map { "\($0.description): \(share)" } ?? share)
            shardFields += [("inputs", .number(Double(total))), ("inputsOfShard", .number(Double(count))),
                            ("firstIndex", first.map { .number(Double($0.context.index)) } ?? .null)]
            guard let first else {
                Console.output(parser.has(Self.json) ? JSONValue.object(shardFields).text : lines.joined(separator: "\n"))
                return 0
            }
            if let problem = first.problem { throw UsageError(problem) }
            if context.outputDirectory == nil { context.outputDirectory = "." }
            let naming = try OutputNaming(template: &context, pipeline: pipeline, batch: true)
            context.input = first.context.input
            context.inputRoot = first.context.inputRoot
            context.index = first.context.index
            context.output = naming.output(for: context.input, in: context)
        } else {
            if let shard { lines.append(shard.description) }
            let naming = try OutputNaming(template: &context, pipeline: pipeline, batch: false)
            context.output = naming.output(for: context.input, in: context)
            if ((pipeline.source as? Load)?.path ?? context.input) == "-" {
                context.inputBytes = try StandardStreams.readStandardInput(limit: context.loadOptions.maxInputBytes, seconds: timeout)
            }
        }
        // Reading the header, and with --pixels the whole work, end at the time limit as a run's do.
        context.loadOptions.deadline = LimitOptions.deadline(in: timeout)
        let explanation = try explanation(of: pipeline, in: context, pixels: parser.has(Self.pixels))
        if parser.has(Self.json) {
            var json = explanation.json
            if case let .object(pairs) = json, !shardFields.isEmpty { json = .object(pairs + shardFields) }
            Console.output(json.text)
        } else {
            lines.append(explanation.text)
            Console.output(lines.joined(separator: "\n"))
        }
        return 0
    }

    /// A plan as `explain` shows it: the input's header, then one row per stage.
    struct Explanation {
        struct Row {
            let stage: String
            let input: Size?
            let output: Size
            /// `≤` for an upper bound (after trim), `~` for an estimate after one.
            let estimate: String
            let note: String
            /// What the stage holds beside its pictures (`Plan.Step.held`).
            var held = 0
            /// In a streamed run, the stage's part (`StreamedMemory.Share`).
            var share: StreamedMemory.Share? = nil
            var destination: String? = nil
            /// With --pixels: what the stage decided from them.
            var decided: [StageNote] = []
            /// For a stage of a branch's group: the group's path and the stage's place in it, as
            /// `RunResult.groupNotes` gives them.
            var group: [Int]? = nil
            var placeInGroup = 0

            /// The plan's note, the stage's part in a streamed run, then what was decided.
            var fullNote: String {
                let holds = held > 0 ? ["holds about \(MemoryBudget.describe(held)) beside the picture"] : []
                return ([note].filter { !$0.isEmpty } + (share.map { [Self.describe($0)] } ?? []) + holds
                        + decided.map { "decided \($0.name) \($0.text)" }).joined(separator: "; ")
            }

            /// `area stage: 6 rows above and below, its rows about 1.2M`.
            static func describe(_ share: StreamedMemory.Share) -> String {
                let rows = "its rows about \(MemoryBudget.describe(share.bytes))"
                return switch share.role {
                case .point: "point stage, on each strip in place"
                case let .area(radius): "area stage: each strip from \(radius) row\(radius == 1 ? "" : "s") above and below, \(rows)"
                case .resample: "resample stage: each strip at its own size from the input rows it needs, \(rows)"
                case .turn: "turning stage: the rows before it kept in tiles (in a temporary file past \(MemoryBudget.describe(TileCache.discThreshold))), \(rows)"
                case .whole: "whole stage: the picture before it gathered in memory, its output made at once, \(rows)"
                case .survey: "surveying stage: measures every pixel in a first read, then works strip by strip" + (share.bytes > 0 ? ", \(rows)" : "")
                case .write: "writing stage: each strip handed on as it passes to another output's stages and encoder, on a thread of their own, \(rows)"
                }
            }
        }

        var input: String?
        var header: ImageHeader?
        var rows: [Row] = []
        /// `Pipeline.estimatedPeakBytes`: what `--max-memory` reserves for the picture.
        var estimatedPeakBytes = 0
        /// Whether the run streams, so that the estimate counts rows, not pictures.
        var streams = false
        /// When it does not, why not (the engine's own reason).
        var reasonNotStreamed: String?

        var text: String {
            var lines: [String] = []
            if let input, let header {
                var line = "\(input): \(header.format.rawValue) \(header.storedSize)"
                if let note = header.animationNote { line += ", \(note)" }
                if header.orientation != 1 { line += ", EXIF orientation \(header.orientation)" }
                lines.append(line)
            }
            let cells = rows.map { row -> (String, String, String) in
                let output = row.estimate == "≤" ? "≤\(row.output)" : "\(row.estimate)\(row.output)"
                let input = row.input.map { "\(row.estimate == "~" ? "~" : "")\($0) → " } ?? "→ "
                let size = row.destination.map { "\(row.estimate == "" ? "" : "~")\(row.output) → \($0)" } ?? input + output
                return (row.stage, size, row.fullNote)
            }
            let textWidth = cells.map(\.0.count).max() ?? 0
            let sizeWidth = cells.map(\.1.count).max() ?? 0
            lines += cells.enumerated().map { index, cell in
                "\(index)  \(cell.0.padding(to: textWidth))  \(cell.1.padding(to: sizeWidth))  \(cell.2)".trimmingTrailingSpaces()
            }
            if estimatedPeakBytes > 0 {
                let held = streams ? "rows of the streamed run" : "whole pictures" + (reasonNotStreamed.map { ", as \($0)" } ?? "")
                lines.append("memory: about \(MemoryBudget.describe(estimatedPeakBytes)) at the peak, \(held) (what --max-memory reserves)")
            }
            return lines.joined(separator: "\n")
        }

        var json: JSONValue {
            var fields: [(String, JSONValue)] = [("schemaVersion", .number(Double(ExplainCommand.schemaVersion))),
                                                 ("input", input.map(JSONValue.string) ?? .null)]
            if let header {
                fields += [("format", .string(header.format.rawValue)), ("storedSize", .dimensions(header.storedSize)),
                           ("orientation", .number(Double(header.orientation))), ("frames", .number(Double(header.frameCount)))]
            }
            fields.append(("stages", .array(rows.map { row in
                .object([("stage", .string(row.stage)), ("input", .dimensions(row.input)), ("output", .dimensions(row.output)),
                         ("exact", .bool(row.estimate.isEmpty)), ("note", .string(row.note)), ("heldBytes", .number(Double(row.held))),
                         ("streamedClass", row.share.map { .string($0.role.name) } ?? .null),
                         ("streamedBytes", row.share.map { .number(Double($0.bytes)) } ?? .null),
                         ("destination", row.destination.map(JSONValue.string) ?? .null),
                         ("decided", .array(row.decided.map(\.json)))])
            })))
            fields.append(("estimatedPeakBytes", .number(Double(estimatedPeakBytes))))
            fields.append(("streams", .bool(streams)))
            fields.append(("notStreamedBecause", reasonNotStreamed.map(JSONValue.string) ?? .null))
            return .object(fields)
        }
    }

    /// The plan; with `pixels`, the picture decoded and transformed too (nothing written), for
    /// what the stages decide from it.
    func explanation(of pipeline: Pipeline, in context: RunContext, pixels: Bool = false) throws -> Explanation {
        let prepared = try pipeline.prepare(in: context)
        let plan = prepared.plan
        var explanation = Explanation()
        explanation.estimatedPeakBytes = pipeline.estimatedPeakBytes(in: context, prepared: prepared, inputBytes: context.inputBytes?.count ?? 0)
        explanation.streams = pipeline.streams(in: context, prepared: prepared)
        let memory = explanation.streams ? pipeline.streamedMemory(in: context, prepared: prepared) : nil
        explanation.reasonNotStreamed = pipeline.reasonNotStreamed(in: context, prepared: prepared)
        if let load = pipeline.source as? Load, let path = load.path ?? context.input, let file = prepared.description.header {
            explanation.input = path
            explanation.header = file
            let turned = load.autoOrient && file.swapsSides ? ", turned upright" : ""
            var how = "\(file.frameCount > 1 ? "its first frame " : "")decoded at full size\(turned); scaling \(plan.scaling.summary)"
            if plan.shrinksOnLoad, let wanted = plan.decodeAtLeast, let first = plan.steps.first {
                let denominator = Int((Double(plan.sourceSize.width) / Double(plan.decodeWorkSize.width)).rounded())
                let scans = denominator == 8 && file.progressive ? ", from the progressive scans that size is made of alone" : ""
                let reduced = denominator > 1 ? "at 1/\(denominator) as \(plan.decodeWorkSize)\(scans)" : "at full size"
                how = plan.decodeResampling.map { resampling in
                    "decoded \(reduced), resampled to \(plan.decodeSize) in its planes as it decodes (\(first.stage.stageSchema.name)'s work with \(resampling.kernel?.rawValue ?? "its kernel"), the chroma at its own size, the colors made once)\(turned); scaling \(plan.scaling.summary)"
                } ?? "decoded \(reduced)\(turned) (shrink-on-load: \(first.stage.stageSchema.name) wants at least \(wanted)); scaling \(plan.scaling.summary)"
            }
            if let region = plan.decodeRegion, prepared.description.decodesRegions {
                how += "; only the \(region.width)x\(region.height) at \(region.x),\(region.y) that \(plan.steps[0].stage.stageSchema.name) reads is decoded"
            }
            if let animation = prepared.animation {
                let frames = animation.frames.count == animation.frameCount ? "all \(animation.frameCount) frames"
                    : animation.frames.count == 1 ? "frame \(animation.frames.lowerBound) of \(animation.frameCount)"
                    : "frames \(animation.frames.lowerBound)–\(animation.frames.upperBound - 1) of \(animation.frameCount)"
                let facts = (try? ImageFile.readPicture(path: path, options: context.loadOptions))
                    .map { ImageInfo.framesText(count: animation.frameCount, coding: CodingFacts.read($0, format: file.format)) }
                how = "\(frames) decoded one at a time, each composed on the canvas as a viewer shows it and run through the stages"
                    + (animation.animatedOutput ? " into an animation" : "") + (facts.map { " (frames: \($0))" } ?? "") + "; scaling \(plan.scaling.summary)"
            } else if let lossless = pipeline.losslessJPEGSummary(in: context, prepared: prepared) {
                how = lossless
            } else if explanation.streams {
                how += "; streamed: \(Pipeline.streamedStripRows) rows at a time go through the stages into the encoder while the decode goes on"
                if let memory, memory.decodedWhole {
                    how += " (decoded whole first, as its decoder gives only whole pictures or it comes from standard input: the picture and a ring of its rows, about \(MemoryBudget.describe(memory.decodeRing)))"
                } else if let memory {
                    how += memory.decoderWritesWhole
                        ? " (the decoded picture, about \(MemoryBudget.describe(memory.decodeRing)), which \(file.format.capabilities.reader) writes whole)"
                        : " (decoded rows in a ring of about \(MemoryBudget.describe(memory.decodeRing)))"
                }
                if prepared.description.orientation != 1, memory?.decodedWhole != true {
                    how += " (turned upright from its orientation tag through a tile cache first)"
                }
                if let memory, memory.gathersOutput {
                    how += " (the last rows gathered into the output picture, for an encoder that takes it whole: about \(MemoryBudget.describe(memory.coding)) with its copies)"
                }
                // A branch's last group goes on in the run's own chain, its surveys with it (and
                // so down the last groups of branches within).
                var chained = pipeline.transforms, spine = pipeline
                while let last = (spine.sink as? Branch)?.groups.last {
                    chained += last.transforms
                    spine = last
                }
                let surveys = chained.filter(\.awaitsSurvey).map(\.stageSchema.name)
                if surveys.count == 1 {
                    how += " (read twice: the first read lets \(surveys[0]) measure every pixel, the second streams through what it found)"
                } else if surveys.count > 1 {
                    how += " (read \(surveys.count + 1) times: a read for each of \(surveys.joined(separator: ", ")) in turn to measure every pixel, then one streams through what they found)"
                }
            }
            explanation.rows.append(.init(stage: pipeline.source.text, input: nil, output: plan.sourceSize, estimate: "", note: how,
                                          share: memory?.stages[0]))
        } else {
            explanation.rows.append(.init(stage: pipeline.source.text, input: nil, output: plan.sourceSize, estimate: "", note: ""))
        }
        // After a stage whose size depends on the pixels (trim), sizes are estimates: "≤" on
        // that stage's output, "~" on everything after it.
        let estimated = plan.firstUpperBoundStep ?? plan.steps.count
        for (index, step) in plan.steps.enumerated() {
            var what = try step.stage.explanation(for: step.input) ?? ""
            if let writer = step.stage as? any Sink { what = "writes \(try writer.destination(in: context))" }
            let estimate = index > estimated ? "~" : index == estimated ? "≤" : ""
            explanation.rows.append(.init(stage: step.stage.text, input: step.input, output: step.output, estimate: estimate, note: what,
                                          held: step.held, share: memory?.stages[index + 1]))
        }
        if let branch = pipeline.sink as? Branch {
            explanation.rows.append(.init(stage: "branch", input: plan.outputSize, output: plan.outputSize, estimate: plan.isExact ? "" : "~",
                                          note: "\(branch.groups.count) groups, each from this picture (one decode)"))
            try addGroups(of: branch, under: [], from: plan.outputSize, to: &explanation, in: context)
            // Streamed, the branch writes its groups beside the last, whose stages go on in the
            // run's chain: their parts are numbered as their rows.
            for index in (plan.steps.count + 1)..<explanation.rows.count where explanation.rows[index].destination == nil {
                explanation.rows[index].share = memory?.stages[index]
            }
        } else {
            let destination = (try? pipeline.sink.destination(in: context)) ?? "(no output given)"
            // A pyramid's row says its layout, levels and tiles.
            let pyramid = (pipeline.sink as? Save)?.pyramidSummary(size: plan.outputSize, in: context)
            explanation.rows.append(.init(stage: pipeline.sink.text, input: plan.outputSize, output: plan.outputSize, estimate: plan.isExact ? "" : "~",
                                          note: pyramid ?? "", destination: destination))
        }
        if pixels {
            // Rows are the stages in order, so a stage's place is its row; a group's stages are
            // found by their group and place.
            let result = try pipeline.dryRun(in: context)
            for (index, notes) in result.notes { explanation.rows[index].decided = notes }
            for (group, notes) in result.groupNotes {
                for (place, notes) in notes {
                    guard let row = explanation.rows.firstIndex(where: { $0.group == group && $0.placeInGroup == place }) else { continue }
                    explanation.rows[row].decided = notes
                }
            }
        }
        return explanation
    }
}

extension ExplainCommand {
    /// A branch's groups as rows of the tree: each stage indented under its group's number.
    /// `parent` is the path of the group the branch ends ([] the pipeline itself).
    func addGroups(of branch: Branch, under parent: [Int], from size: Size, to explanation: inout Explanation, in context: RunContext) throws {
        for (number, group) in branch.groups.enumerated() {
            let prefix = String(repeating: "  ", count: parent.count) + "{\(number + 1)} "
            let path = parent + [number + 1]
            let plan = try group.plan(sourceSize: size)
            for (offset, step) in plan.steps.enumerated() {
                explanation.rows.append(.init(stage: prefix + step.stage.text, input: step.input, output: step.output, estimate: "",
                                              note: try step.stage.explanation(for: step.input) ?? "", held: step.held,
                                              group: path, placeInGroup: offset + 1))
            }
            if let nested = group.sink as? Branch {
                explanation.rows.append(.init(stage: prefix + "branch", input: plan.outputSize, output: plan.outputSize, estimate: "",
                                              note: "\(nested.groups.count) groups, each from this picture"))
                try addGroups(of: nested, under: path, from: plan.outputSize, to: &explanation, in: context)
            } else {
                explanation.rows.append(.init(stage: prefix + group.sink.text, input: plan.outputSize, output: plan.outputSize, estimate: "",
                                              note: "", destination: try group.sink.destination(in: context)))
            }
        }
    }
}

extension String {
    func trimmingTrailingSpaces() -> String {
        var text = self
        while text.last == " " { text.removeLast() }
        return text
    }
}
