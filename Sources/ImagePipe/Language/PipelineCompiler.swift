/// Turns pipeline text into a `Pipeline`: parses, finds each stage in the registry, validates
/// its arguments through its schema and checks that sources and sinks stand at the ends.
/// Every problem found is reported, each with its location.
public struct PipelineCompiler: Sendable {
    public var registry: Registry

    public init(registry: Registry) { self.registry = registry }

    /// Compiles `text`; `file` names it in diagnostics (`<inline>` for `-e` text).
    public func compile(_ text: String, file: String = "<inline>", variables: [String: String] = [:]) throws(PipelineSyntaxError) -> Pipeline {
        let (syntax, parseDiagnostics) = Parser.parse(text: text, file: file, variables: variables)
        var diagnostics = parseDiagnostics
        let lines = text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).map(String.init)
        func report(_ message: String, at location: SourceLocation) {
            diagnostics.append(Diagnostic(location: location, message: message,
                                          lineText: location.line <= lines.count ? lines[location.line - 1] : ""))
        }

        var stages: [(stage: any Stage, location: SourceLocation)] = []
        for call in syntax where diagnostics.allSatisfy({ $0.location != call.name.location }) {
            let name = call.name.text
            guard let entry = registry.entry(named: name) else {
                let hint = Suggestion.closest(to: name, in: registry.stageNames).map { " (did you mean '\($0)'?)" } ?? ""
                report("unknown stage '\(name)'\(hint)", at: call.name.location)
                continue
            }
            do {
                let arguments = try entry.schema.arguments(from: call.rawArguments)
                stages.append((try entry.definition.makeStage(arguments: arguments), call.name.location))
            } catch let error as ArgumentError {
                report(error.message, at: location(of: error.target, in: call))
            } catch {
                report("\(name): \(error)", at: call.name.location)
            }
        }

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
            throw PipelineSyntaxError(diagnostics.sorted { ($0.location.line, $0.location.column) < ($1.location.line, $1.location.column) })
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
