/// What stages decide from the pixels (a smart crop's window, trim's box, normalize's stretch),
/// made on an animation's first frame and given back for every later frame, so that the frames
/// stay aligned and keep the same tones. The animated run puts it in the stages'
/// `StageContext`; outside one, each call decides for itself.
package final class FrameDecisions: @unchecked Sendable {
    package static var current: FrameDecisions? { StageContext.current.frameDecisions }

    private let decisions = Locked<[Int: [any Sendable]]>([:])
    private let position = Locked<(stage: Int, call: Int)>((0, 0))

    package init() {}

    /// Marks the start of the stage at `index` of the pipeline: its decisions are keyed by it.
    package func enter(stage index: Int) {
        position.withLock { $0 = (index, 0) }
    }

    /// `decide()`'s answer for the current stage: made now on the first frame, remembered for
    /// the rest. A stage that decides from the pixels calls this around the decision.
    package static func decide<T: Sendable>(_ decide: () throws -> T) rethrows -> T {
        guard let current else { return try decide() }
        let (stage, call) = current.position.withLock { position in
            defer { position.call += 1 }
            return position
        }
        // Looked up as a value that may be absent, not cast straight to T: an absent decision
        // cast to an optional T would read as a decision of nil.
        let earlier: (any Sendable)? = current.decisions.withLock { made in
            guard let calls = made[stage], call < calls.count else { return nil }
            return calls[call]
        }
        if let earlier, let made = earlier as? T { return made }
        let made = try decide()
        current.decisions.withLock { $0[stage, default: []].append(made) }
        return made
    }
}
