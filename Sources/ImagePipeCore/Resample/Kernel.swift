#if canImport(Glibc)
import Glibc
#endif

/// A resampling filter: the weight an input pixel gets by its distance from an output pixel's
/// centre, in input pixels at scale 1. When shrinking, the resampler stretches the kernel by the
/// reduction so that every input pixel contributes (no aliasing from skipped pixels).
public enum Kernel: String, CaseIterable, Sendable {
    /// The input pixel under the output pixel's centre; no filtering, never stretched.
    case nearest
    /// The area average of the input pixels the output pixel covers.
    case box
    /// The triangle (tent): bilinear interpolation when enlarging.
    case linear
    /// Catmull-Rom (B = 0, C = 1/2): sharp, a little ringing.
    case cubic
    /// Mitchell-Netravali (B = C = 1/3): softer than Catmull-Rom, less ringing.
    case mitchell
    /// Windowed sinc with 2 lobes.
    case lanczos2
    /// Windowed sinc with 3 lobes: the sharpest; the default for reductions, as in sharp,
    /// libvips and ImageMagick.
    case lanczos3

    /// How far from the centre the kernel reaches, in input pixels at scale 1.
    public var support: Double {
        switch self {
        case .nearest, .box: 0.5
        case .linear: 1
        case .cubic, .mitchell, .lanczos2: 2
        case .lanczos3: 3
        }
    }

    /// The kernel's value at distance `x` (any sign).
    public func weight(_ x: Double) -> Double {
        let x = abs(x)
        switch self {
        case .nearest, .box:
            return x < 0.5 ? 1 : 0
        case .linear:
            return max(0, 1 - x)
        case .cubic:
            return Self.bicubic(x, b: 0, c: 0.5)
        case .mitchell:
            return Self.bicubic(x, b: 1.0 / 3, c: 1.0 / 3)
        case .lanczos2:
            return x < 2 ? Self.sinc(x) * Self.sinc(x / 2) : 0
        case .lanczos3:
            return x < 3 ? Self.sinc(x) * Self.sinc(x / 3) : 0
        }
    }

    private static func sinc(_ x: Double) -> Double {
        if x < 1e-9 { return 1 }
        let t = Double.pi * x
        return sin(t) / t
    }

    /// Mitchell and Netravali's two-parameter family of cubics (1988).
    private static func bicubic(_ x: Double, b: Double, c: Double) -> Double {
        if x < 1 {
            return ((12 - 9 * b - 6 * c) * x * x * x + (-18 + 12 * b + 6 * c) * x * x + (6 - 2 * b)) / 6
        }
        if x < 2 {
            return ((-b - 6 * c) * x * x * x + (6 * b + 30 * c) * x * x + (-12 * b - 48 * c) * x + (8 * b + 24 * c)) / 6
        }
        return 0
    }
}

extension Kernel {
    /// The kernel's number in the plugin interface (`IMAGEPIPE_KERNEL_*`): its place in
    /// `allCases` plus one, 0 standing for none (the run's default).
    package var interfaceNumber: Int32 { Int32(Self.allCases.firstIndex(of: self)! + 1) }

    /// The kernel of an interface number; nil for 0 and for a number no kernel has.
    package init?(interfaceNumber: Int32) {
        guard interfaceNumber >= 1, Int(interfaceNumber) <= Self.allCases.count else { return nil }
        self = Self.allCases[Int(interfaceNumber) - 1]
    }
}
