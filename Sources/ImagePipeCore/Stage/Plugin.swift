/// A module's contribution of stages, registered together (as a GStreamer plugin holds
/// several elements).
public struct Plugin: Sendable {
    public let name: String
    public let summary: String
    public let stages: [StageDefinition]

    /// A plugin of compiled-in stage types.
    public init(name: String, summary: String, stages: [any Stage.Type]) {
        self.init(name: name, summary: summary, definitions: stages.map { StageDefinition(opening: $0) })
    }

    public init(name: String, summary: String, definitions: [StageDefinition]) {
        self.name = name
        self.summary = summary
        self.stages = definitions
    }
}

extension StageDefinition {
    init(opening type: any Stage.Type) {
        func definition<S: Stage>(_ type: S.Type) -> StageDefinition { StageDefinition(type) }
        self = definition(type)
    }
}
