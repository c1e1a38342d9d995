/// What a run knows of its input before decoding it: the source's header and the plan made
/// from it (`Pipeline.prepare`). A batch plans each input to reserve its memory, then hands
/// the plan to `run(in:prepared:)`, so the header is read once.
public struct PreparedRun: Sendable {
    public let description: SourceDescription
    public let plan: Plan
    /// For an animated input whose frames are decoded (more than the first): which, and how
    /// they are written. nil when the input is a still picture, or its first frame alone is.
    public var animation: AnimationPlan?
}
