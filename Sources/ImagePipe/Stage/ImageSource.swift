/// A stage that produces the pipeline's image: the first stage.
public protocol ImageSource: Stage {
    /// What the source will produce, from the file header alone.
    func describe(in context: RunContext) throws -> SourceDescription
    /// Decodes the image. `description` is what `describe` gave, when the caller has it (so the
    /// header need not be read twice); `atLeast`, when given, allows decoding at a reduced size
    /// no smaller than it on either side (the planner's shrink-on-load).
    func load(in context: RunContext, description: SourceDescription?, atLeast: Size?) throws -> Image
    /// The decoding options this source uses in `context` (its own parameters over the run's).
    func loadOptions(in context: RunContext) -> LoadOptions
}

extension ImageSource {
    public func loadOptions(in context: RunContext) -> LoadOptions { context.loadOptions }
}
