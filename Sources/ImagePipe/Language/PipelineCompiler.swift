/// Turns pipeline text into a `Pipeline`: parses, finds each stage in the registry, validates
/// its arguments through its schema and checks that sources and sinks stand at the ends.
/// Every problem found is reported, each with its location.
public struct PipelineCompiler: Sendable {
    public var registry: Registry

    public init(registry: Registry) { self.registry = registry }

    /// The longest pipeline text compiled, and the most text `$VAR` expansion may add.
    public static let maxTextBytes = Lexer.maxTextBytes

    /// Compiles `text`; `file` names it in diagnostics (`<inline>` for `-e` text).
    public func compile(_ text: String, file: String = "<inline>", variables: [String: String] = [:]) throws(PipelineSyntaxError) -> Pipeline {
        guard text.utf8.count <= Self.maxTextBytes else {
            throw PipelineSyntaxError([Diagnostic(location: SourceLocation(file: file, line: 1, column: 1),
                                                  message: "the pipeline text is \(text.utf8.count) bytes, more than the limit of \(Self.maxTextBytes)",
                                                  lineText: "")])
        }
        let (syntax, parseDiagnostics) = Parser.parse(text: text, file: file, variables: variables)
        // A call the lexer already found fault with (an unset $VAR, a bad escape) is not also
        // checked against its schema: the missing value would be reported a second time. A
        // diagnostic belongs to the last call that starts at or before it.
        let starts = syntax.map { ($0.name.location.line, $0.name.location.column) }
        var faulty = Set<Int>()
        for diagnostic in parseDiagnostics {
            let at = (diagnostic.location.line, diagnostic.location.column)
            var low = 0, high = starts.count // binary search: the calls are in text order
            while low < high {
                let middle = (low + high) / 2
                if starts[middle] <= at { low = middle + 1 } else { high = middle }
            }
            if low > 0 { faulty.insert(low - 1) }
        }
        var diagnostics = parseDiagnostics
        let lines = SourceLines(text)
        func report(_ message: String, at location: SourceLocation, remedy: Remedy? = nil) {
            diagnostics.append(Diagnostic(location: location, message: message,
                                          lineText: lines.line(location.line), remedy: remedy))
        }

        /// The stages of `calls`, each with its location; a branch with its groups compiled.
        func makeStages(_ calls: [StageSyntax]) -> [(stage: any Stage, location: SourceLocation)] {
            var stages: [(stage: any Stage, location: SourceLocation)] = []
            for call in calls {
                let name = call.name.text
                guard let entry = registry.entry(named: name) else {
                    report(StageSynonyms.unknownStageMessage(name, in: registry.stageNames), at: call.name.location, remedy: .listStages)
                    continue
                }
                do {
                    let arguments = try entry.schema.arguments(from: call.rawArguments)
                    var stage = try entry.definition.makeStage(arguments: arguments)
                    if var branch = stage as? Branch {
                        if call.groups.isEmpty { report("branch: give its groups, branch { … } { … }, each ending in its own save PATH", at: call.name.location) }
                        branch.groups = zip(call.groups, call.groupLocations).compactMap { makeGroup($0, at: $1) }
                        stage = branch
                    } else if let group = call.groupLocations.first {
                        report("only branch takes groups of stages in braces; \(name) takes none", at: group)
                    }
                    stages.append((stage, call.name.location))
                } catch let error as ArgumentError {
                    report(error.message, at: location(of: error.target, in: call))
                } catch {
                    report("\(name): \(error)", at: call.name.location, remedy: (error as? any ImagePipeError)?.remedy)
                }
            }
            return stages
        }
        /// One group of a branch: transforms, then a save with its own path (or a branch).
        func makeGroup(_ calls: [StageSyntax], at opening: SourceLocation) -> Pipeline? {
            let stages = makeStages(calls)
            guard let last = stages.last else {
                report("an empty group: each group of a branch has stages, ending in its own save PATH", at: opening)
                return nil
            }
            var transforms: [any Transform] = []
            for (stage, location) in stages.dropLast() {
                guard let transform = stage as? any Transform else {
                    report("'\(stage.stageSchema.name)' cannot stand inside a group before its end: a group starts from the picture at the branch and ends in its own save", at: location)
                    return nil
                }
                transforms.append(transform)
            }
            let sink = last.stage as? any Sink
            guard let sink, !(sink is Tee), (sink as? Save)?.path != nil || sink is Branch else {
                report("each group of a branch ends in its own save PATH (here: '\(last.stage.stageSchema.name)'), so that every output is named", at: last.location)
                return nil
            }
            return Pipeline(source: Load(), transforms: transforms, sink: sink, locations: [nil] + stages.map(\.location))
        }

        let stages = makeStages(syntax.enumerated().filter { !faulty.contains($0.offset) }.map(\.element))

        var source: (any ImageSource)?
        var sink: (any Sink)?
        var transforms: [any Transform] = []
        for (index, (stage, location)) in stages.enumerated() {
            let name = stage.stageSchema.name
            if let reader = stage as? any ImageSource, index == 0 {
                source = reader
            } else if let writer = stage as? any Sink, index == stages.count - 1 {
                sink = writer
            } else if let transform = stage as? any Transform {
                transforms.append(transform)
            } else if stage is any ImageSource {
                report("'\(name)' reads the picture, so it must be the first stage", at: location)
            } else {
                report("'\(name)' writes the picture, so it must be the last stage", at: location)
            }
        }
        guard diagnostics.isEmpty else {
            let sorted = diagnostics.sorted { ($0.location.line, $0.location.column) < ($1.location.line, $1.location.column) }
            throw PipelineSyntaxError(Array(sorted.prefix(PipelineSyntaxError.maxDiagnostics)),
                                      omitted: max(0, sorted.count - PipelineSyntaxError.maxDiagnostics))
        }
        let hasSource = source != nil, hasSink = sink != nil
        return Pipeline(source: source ?? Load(), transforms: transforms, sink: sink ?? Save(),
                        locations: (hasSource ? [stages.first!.location] : [nil])
                            + stages.dropFirst(hasSource ? 1 : 0).dropLast(hasSink ? 1 : 0).map(\.location)
                            + (hasSink ? [stages.last!.location] : [nil]))
    }

    private func location(of target: ArgumentError.Target, in call: StageSyntax) -> SourceLocation {
        switch target {
        case .stage: return call.name.location
        case let .key(index): return call.arguments[index].keyLocation
        case let .value(index): return call.arguments[index].valueLocation
        case let .parameter(name):
            let schema = registry.entry(named: call.name.text)!.schema
            let positional = schema.parameters.filter(\.isPositional).map(\.name)
            var positionalIndex = 0
            for argument in call.arguments {
                let parameter = argument.key ?? (positionalIndex < positional.count ? positional[positionalIndex] : "")
                if argument.key == nil { positionalIndex += 1 }
                if parameter == name { return argument.location }
            }
            return call.name.location
        }
    }
}
