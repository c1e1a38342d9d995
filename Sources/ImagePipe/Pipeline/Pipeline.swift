/// One source, transforms in the written order, one sink.
public struct Pipeline: Sendable {
    public var source: any ImageSource
    public var transforms: [any Transform]
    public var sink: any Sink
    /// Where each stage was written (source, transforms…, sink); nil for stages made in code.
    public var locations: [SourceLocation?]

    public init(source: any ImageSource = Load(), transforms: [any Transform] = [], sink: any Sink = Save(),
                locations: [SourceLocation?]? = nil) {
        self.source = source
        self.transforms = transforms
        self.sink = sink
        self.locations = locations ?? Array(repeating: nil, count: transforms.count + 2)
        precondition(self.locations.count == transforms.count + 2, "one location per stage")
    }

    /// Every stage in order.
    public var stages: [any Stage] { [source] + transforms + [sink] }

    /// The canonical text, one stage a line; it compiles back to an equal pipeline.
    public var text: String { stages.map(\.text).joined(separator: "\n") }

    /// Each stage's geometry for a source of the given size, without touching pixels.
    public func plan(sourceSize: Size) throws -> Plan {
        var steps: [Plan.Step] = []
        var size = sourceSize
        for (index, transform) in transforms.enumerated() {
            let output: Size
            do {
                output = try transform.outputSize(for: size)
            } catch let error as StageError {
                throw located(error, stage: index + 1)
            }
            steps.append(Plan.Step(stage: transform, input: size, output: output))
            size = output
        }
        return Plan(sourceSize: sourceSize, steps: steps)
    }

    /// The plan for the source this context names, from its header alone.
    public func plan(in context: RunContext) throws -> Plan {
        try plan(sourceSize: withLocation(stage: 0) { try source.header(in: context) })
    }

    /// Applies the transforms to an image in memory (no source, no sink).
    public func apply(to image: Image) throws -> Image {
        var current = image
        for (index, transform) in transforms.enumerated() {
            current = try withLocation(stage: index + 1) {
                let expected = try transform.outputSize(for: current.size)
                let result = try transform.apply(to: current)
                guard result.size == expected else {
                    throw StageError("produced \(result.size) where its plan said \(expected) (a bug in the stage)")
                }
                return result
            }
        }
        return current
    }

    /// Plans, decodes, transforms and writes; returns the plan that ran and where the result went.
    @discardableResult
    public func run(in context: RunContext) throws -> (plan: Plan, output: String) {
        let plan = try plan(in: context)
        let image = try withLocation(stage: 0) { try source.load(in: context, atLeast: nil) }
        let result = try apply(to: image)
        let output = try withLocation(stage: transforms.count + 1) { try sink.write(result, in: context) }
        return (plan, output)
    }

    /// Runs `body`, giving a `StageError` the stage's name and location.
    private func withLocation<T>(stage index: Int, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as StageError {
            throw located(error, stage: index)
        }
    }

    private func located(_ error: StageError, stage index: Int) -> PipelineError {
        PipelineError(stage: type(of: stages[index]).schema.name, location: locations[index], message: error.message)
    }
}
