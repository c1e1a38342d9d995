/// What a run tells the stages working for it: its scaling mode, its pixel limit, whether it
/// has been asked to stop (Ctrl-C, or the picture's time limit, which cancels it), where the
/// notes a stage records go, and (inside the framework) the run's decoding options and an
/// animation's decisions. It is the one thing a run binds for its stages.
///
/// The run binds one context around all of its stages' work (`current`), on every thread it
/// hands rows to, rather than passing it through each of a stage's `apply` methods: so every
/// stage and every helper a stage calls (the resampler, the row bands, the convolution) sees
/// the same context without any signature carrying it. A plugin loaded at run time is handed the
/// same context with every call of its table's `make_rows` (and a survey's `finish`, a warp's
/// `render`), and ImagePipePluginKit
/// binds it in the plugin's own copy of the framework: a stage reads it the same way compiled in
/// or loaded.
public struct StageContext: Sendable {
    /// The run's speed/quality choice (`--scaling`).
    public var scaling: ScalingMode
    /// The most pixels a picture may have (`--max-pixels`), for a stage that makes a large one
    /// (a canvas, a rendered text); nil for no limit.
    public var maxPixels: Int?
    /// Set when the run is to stop: `checkCancelled()` throws then.
    public var cancellation: Cancellation?
    /// Where `StageNote.record` puts notes: the pipeline's list for the stage being applied.
    package var notes: Locked<[StageNote]>?
    /// The run's load options (ImagePipe's `LoadOptions`, which the core cannot name: it has no
    /// codecs), for a stage that decodes a file of its own; read through `LoadOptions.current`.
    package var loadOptions: (any Sendable)?
    /// What stages decided on an animation's first frame, for the later frames.
    package var frameDecisions: FrameDecisions?

    /// The pixel limit of a run that sets none: 178,956,970 pixels, Pillow's decompression-bomb
    /// limit (537 MB as RGB).
    public static let defaultMaxPixels = 178_956_970

    public init(scaling: ScalingMode = .good, maxPixels: Int? = StageContext.defaultMaxPixels, cancellation: Cancellation? = nil) {
        self.scaling = scaling
        self.maxPixels = maxPixels
        self.cancellation = cancellation
    }

    /// The context of the run this thread works for; a stage applied on its own gets the
    /// defaults (`good`, the default pixel limit, never stopped, notes dropped).
    @TaskLocal public static var current = StageContext()

    /// Throws the `stopped` error when the run this thread works for was asked to stop: for a
    /// stage's own row loops, once a row or so.
    public static func checkCancelled() throws(ImageError) {
        if let cancellation = current.cancellation, cancellation.isCancelled { throw Cancellation.stopped(path: nil) }
    }

    /// This context with another scaling mode: what a run's plan works out its levels in.
    public func scaling(_ mode: ScalingMode) -> StageContext {
        var context = self
        context.scaling = mode
        return context
    }

    /// `body` with this context as the current one.
    public func bound<T>(_ body: () throws -> T) rethrows -> T {
        try Self.$current.withValue(self, operation: body)
    }
}
