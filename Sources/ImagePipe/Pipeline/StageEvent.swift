/// One stage done during a run: its place in the pipeline, the image it produced (or wrote)
/// and how long it took.
public struct StageEvent: Sendable {
    /// 0 for the source, then the transforms, then the sink.
    public let index: Int
    public let stage: any Stage
    public let image: Image
    public let seconds: Double
    /// For the source after a reduced decode (shrink-on-load): the size of the full picture the
    /// smaller image stands for. nil when the image is the picture itself.
    public var standsFor: Size? = nil
    /// What the stage decided from the pixels (a smart crop's window), in its words.
    public var notes: [StageNote] = []
    /// For a stage inside a branch: its group, `{2}`, or `{2} {1}` within a nested branch.
    /// Such events are numbered on after the stages of the pipeline itself.
    public var group: String? = nil
}
