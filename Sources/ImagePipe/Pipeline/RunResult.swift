/// What a run did: the plan it followed and the files it wrote, in order.
public struct RunResult: Sendable {
    public let plan: Plan
    /// Every file written (tees, then the sink or a branch's groups), with its picture's size.
    public let written: [WrittenFile]
    /// The size of the picture the sink wrote: the plan's, or smaller where a stage's size
    /// depends on the pixels (`trim`).
    public let outputSize: Size
    /// What stages decided from the pixels (a smart crop's window), by the stage's place in the
    /// pipeline (0 the source, 1 the first transform…); stages that decided nothing are absent.
    public var notes: [Int: [StageNote]] = [:]
    /// What the stages of a branch's groups decided: by the group's path (its number in the
    /// branch, 1 the first, after the numbers of the groups it lies in: [2, 1] the first group of
    /// a branch ending the second; `Branch.label(of:)` names it as a trace does, `{2} {1}`), then
    /// by the stage's place in its group (1 its first stage).
    public var groupNotes: GroupNotes = [:]

    /// Notes by group path, then by the stage's place in the group.
    public typealias GroupNotes = [[Int]: [Int: [StageNote]]]

    /// The paths written, in order.
    public var outputs: [String] { written.map(\.path) }
}
