/// `save lossless=`: how losslessly the picture is written. WebP, AVIF and JPEG XL code their
/// pixels losslessly or not; a JPEG from a JPEG through stages that only move pixels is written
/// from its own DCT coefficients (`Pipeline.losslessJPEG`) when this allows it.
public enum LosslessMode: String, CaseIterable, Hashable, Sendable {
    /// Lossy WebP, AVIF and JPEG XL; a JPEG's coefficients moved when that is exact, else the
    /// picture encoded anew.
    case auto
    /// Lossless WebP, AVIF and JPEG XL; a JPEG's coefficients moved, or an error.
    case required = "true"
    /// Always encoded anew.
    case never = "false"
    /// JPEG only, as `jpegtran -trim`: the coefficients always moved, dropping the partial blocks
    /// at the edges that a turn would bring to the left or top, and moving a crop's corner in to
    /// the block grid; the picture is then a few pixels smaller than asked.
    case trim

    /// As a flag: nil for `auto`; `trim` requires the lossless write as `true` does.
    public var flag: Bool? {
        switch self {
        case .auto: nil
        case .required, .trim: true
        case .never: false
        }
    }

    /// The mode a flag stands for.
    public init(flag: Bool?) {
        self = switch flag {
        case nil: .auto
        case true?: .required
        case false?: .never
        }
    }
}
