/// Asks a run in progress to stop early (the command sets it on Ctrl-C and at a picture's time
/// limit): checked between stages, inside the stages' row loops (`RowBands`, the resampler,
/// `StageContext.checkCancelled()`), between rows of the encoders and before an output lands, so a stopped run
/// ends within a fraction of a second and writes nothing.
public final class Cancellation: Sendable {
    private let cancelled = Locked(false)
    /// Whose cancellation this one follows as well: a batch's, for one of its pictures.
    private let parent: Cancellation?
    /// Another side's word on it: in a plugin, the command's run, asked across the plugin interface.
    private let asking: (@Sendable () -> Bool)?

    /// A cancellation of its own, also cancelled whenever `parent` is (one picture's time limit
    /// under the batch's Ctrl-C).
    public init(parent: Cancellation? = nil) {
        self.parent = parent
        asking = nil
    }

    /// A cancellation that is also cancelled whenever `asking` says so: for a run on the other
    /// side of an interface (ImagePipePluginKit's, for the command's run).
    public init(asking: @escaping @Sendable () -> Bool) {
        parent = nil
        self.asking = asking
    }

    /// Asks the run to stop; it throws at its next check.
    public func cancel() { cancelled.withLock { $0 = true } }

    /// Whether `cancel()` was called, here or on the parent, or `asking` says so.
    public var isCancelled: Bool { cancelled.withLock { $0 } || parent?.isCancelled == true || asking?() == true }

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
