/// Builds a pipeline's transforms in Swift, in the order written:
///
///     let avatar = try Pipeline {
///         FitStage(1280, 720)
///         try CircleCropStage(size: 256)
///     }
@resultBuilder
public enum PipelineBuilder {
    public static func buildExpression(_ stage: any Transform) -> [any Transform] { [stage] }
    public static func buildBlock(_ parts: [any Transform]...) -> [any Transform] { parts.flatMap { $0 } }
    public static func buildOptional(_ part: [any Transform]?) -> [any Transform] { part ?? [] }
    public static func buildEither(first part: [any Transform]) -> [any Transform] { part }
    public static func buildEither(second part: [any Transform]) -> [any Transform] { part }
    public static func buildArray(_ parts: [[any Transform]]) -> [any Transform] { parts.flatMap { $0 } }
}

extension Pipeline {
    /// A pipeline from a source, the transforms the builder lists, and a sink.
    public init(source: any ImageSource = Load(), sink: any Sink = Save(),
                @PipelineBuilder _ transforms: () throws -> [any Transform]) rethrows {
        self.init(source: source, transforms: try transforms(), sink: sink)
    }
}
