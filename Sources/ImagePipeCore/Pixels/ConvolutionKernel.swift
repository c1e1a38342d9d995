#if canImport(Glibc)
import Glibc
#endif

/// A 1-D convolution kernel: an odd number of weights, centred on the middle one.
public struct ConvolutionKernel: Equatable, Sendable {
    public let weights: [Float]

    /// A kernel of these weights (an odd number of them, the middle one at the pixel itself).
    public init(_ weights: [Float]) {
        precondition(weights.count % 2 == 1, "a convolution kernel has an odd number of weights")
        self.weights = weights
    }

    /// Weights on each side of the centre.
    public var radius: Int { weights.count / 2 }

    public var isSymmetric: Bool { (0..<radius).allSatisfy { weights[$0] == weights[weights.count - 1 - $0] } }

    /// The sum of the weights.
    public var sum: Float { weights.reduce(0, +) }

    /// Radius of a Gaussian kernel, in sigmas: the tails beyond 3σ hold 0.27 % of the weight,
    /// so cutting them (and renormalising) moves no pixel of an 8-bit picture by half a level.
    /// (libvips' gaussblur cuts where the curve falls to 0.2 of its peak, about 1.8σ, which is
    /// faster but not a Gaussian's response.)
    public static let gaussianRadiusInSigmas = 3.0

    /// A normalised Gaussian of standard deviation `sigma` pixels, sampled at the pixel
    /// centres (as libvips and ImageMagick sample it), radius ⌈3σ⌉.
    public static func gaussian(sigma: Double) -> ConvolutionKernel {
        precondition(sigma > 0 && sigma.isFinite, "a Gaussian needs a positive sigma")
        let radius = max(1, Int((gaussianRadiusInSigmas * sigma).rounded(.up)))
        let raw = (-radius...radius).map { exp(-Double($0 * $0) / (2 * sigma * sigma)) }
        let total = raw.reduce(0, +)
        return ConvolutionKernel(raw.map { Float($0 / total) })
    }
}
