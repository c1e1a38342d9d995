/// The speed/quality choice of a run: how far the decoder may shrink before the resampler, and
/// which kernel stages use when they are not given one.
public enum ScalingMode: String, CaseIterable, Sendable {
    /// The tightest JPEG DCT reduction, then gdk-pixbuf's bilinear scaler (a box filter when
    /// shrinking): the fastest, and the softest and most aliased.
    case fast
    /// A DCT reduction that leaves at least twice the needed size, then Lanczos3 (the default,
    /// libvips' and Pillow's policy).
    case good
    /// The full decode, then Lanczos3.
    case best

    /// The mode stages resample in when they are given no kernel: bound by a pipeline run for
    /// its duration (`Pipeline.run`), so each run of a batch has its own.
    @TaskLocal public static var current: ScalingMode = .good

    /// The kernel a stage uses when it is given none; nil means gdk-pixbuf's own scaler.
    public var defaultKernel: Kernel? { self == .fast ? nil : .lanczos3 }

    /// How many times the needed size a reduced decode must keep on each side; nil for no
    /// reduced decode.
    public var decodeHeadroom: Int? {
        switch self {
        case .fast: 1
        case .good: 2
        case .best: nil
        }
    }

    /// A few words for `imagepipe explain`.
    public var summary: String {
        switch self {
        case .fast: "fast: tightest DCT reduction, gdk-pixbuf bilinear"
        case .good: "good: DCT reduction with 2× headroom, lanczos3"
        case .best: "best: full decode, lanczos3"
        }
    }
}
