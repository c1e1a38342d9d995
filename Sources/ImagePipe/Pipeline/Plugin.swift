/// A module's contribution of stages, registered together (as a GStreamer plugin holds
/// several elements).
public struct Plugin: Sendable {
    public let name: String
    public let summary: String
    public let stages: [any Stage.Type]

    public init(name: String, summary: String, stages: [any Stage.Type]) {
        self.name = name
        self.summary = summary
        self.stages = stages
    }
}
