/// What a run did: the plan it followed and the files it wrote, in order.
public struct RunResult: Sendable {
    public let plan: Plan
    public let outputs: [String]
}
