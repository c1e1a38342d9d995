/// The speed/quality choice of a run: how far the decoder may shrink before the resampler.
/// Every mode then resamples with Lanczos3 unless a stage is given a kernel.
public enum ScalingMode: String, CaseIterable, Sendable {
    /// The tightest JPEG DCT reduction (at least the output's size), then Lanczos3 for the
    /// rest: the fastest; the DCT's 8×8 averaging makes it softer and more aliased than `good`.
    case fast
    /// A DCT reduction that leaves at least twice the needed size, then Lanczos3 (the default,
    /// libvips' and Pillow's policy).
    case good
    /// The full decode, then Lanczos3.
    case best

    /// The kernel a stage uses when it is given none: Lanczos3 in every mode, as Pillow's
    /// thumbnail after its JPEG draft and libvips after shrink-on-load (a box or bilinear filter
    /// after the DCT's reduction would add its aliasing to the DCT's).
    public var defaultKernel: Kernel { .lanczos3 }

    /// How many times the needed size a reduced decode must keep on each side; nil for no
    /// reduced decode.
    public var decodeHeadroom: Int? {
        switch self {
        case .fast: 1
        case .good: 2
        case .best: nil
        }
    }

    /// The mode's number in the plugin interface (`imagepipe_stage_context.scaling`): its place
    /// in `allCases`, 0 fast, 1 good, 2 best.
    package var interfaceNumber: Int32 { Int32(Self.allCases.firstIndex(of: self)!) }

    /// The mode of an interface number; `good` for a number no mode has.
    package init(interfaceNumber: Int32) {
        self = Self.allCases.indices.contains(Int(interfaceNumber)) ? Self.allCases[Int(interfaceNumber)] : .good
    }

    /// A few words for `imagepipe explain`.
    public var summary: String {
        switch self {
        case .fast: "fast: tightest reduced decode, lanczos3"
        case .good: "good: reduced decode with 2× headroom, lanczos3"
        case .best: "best: full decode, lanczos3"
        }
    }
}
