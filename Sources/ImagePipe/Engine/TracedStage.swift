/// What a side output of a traced streamed run writes: the picture after one stage (0 the
/// source), for the trace's page (`TraceWriter.recordStreamed`).
struct TracedStage {
    /// The stage's number, as the run of whole pictures numbers its events.
    let number: Int
    let stage: any Stage
    /// The branch's group the stage is in, `{2}`; nil outside a branch.
    let group: String?
    /// For the source after a reduced decode: the size of the picture its rows stand for.
    let standsFor: Size?

    /// Numbers above this are a trace's feeds (`number + feedBase`), so that the time their rows
    /// take to be handed over is not counted as their stage's.
    static let feedBase = 1 << 24
}
