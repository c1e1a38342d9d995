/// Asks a run in progress to stop early (the command sets it on Ctrl-C and at a picture's time
/// limit): checked between stages, inside the stages' row loops (`RowBands`, the resampler,
/// `checkCurrent()`), between rows of the encoders and before an output lands, so a stopped run
/// ends within a fraction of a second and writes nothing.
public final class Cancellation: Sendable {
    /// The cancellation of the run this thread works for, bound by `Pipeline.run(in:)` around its
    /// work, so that loops deep inside a stage can stop without every stage passing it down.
    @TaskLocal public static var current: Cancellation?

    /// Throws the `stopped` error when the run this thread works for was asked to stop: for a
    /// stage's own row loops, once a row or so.
    public static func checkCurrent() throws(ImageError) {
        if let current, current.isCancelled { throw stopped(path: nil) }
    }

    private let cancelled = Locked(false)
    /// Whose cancellation this one follows as well: a batch's, for one of its pictures.
    private let parent: Cancellation?

    /// A cancellation of its own, also cancelled whenever `parent` is (one picture's time limit
    /// under the batch's Ctrl-C).
    public init(parent: Cancellation? = nil) { self.parent = parent }

    /// Asks the run to stop; it throws at its next check.
    public func cancel() { cancelled.withLock { $0 = true } }

    /// Whether `cancel()` was called, here or on the parent.
    public var isCancelled: Bool { cancelled.withLock { $0 } || parent?.isCancelled == true }

    /// Throws an `.interrupted` error once cancelled.
    public func check(path: String?) throws(ImageError) {
        if isCancelled { throw Self.stopped(path: path) }
    }

    /// The error of work given up because it was cancelled: what `check` throws, and what a
    /// loop that notices the cancellation between its rows (the PNG encoder's) throws too.
    public static func stopped(path: String?) -> ImageError {
        ImageError(.interrupted, path: path, reason: "stopped before it was finished; nothing written")
    }
}
