/// A stage's whole work when that is resampling its whole input to `size` with `kernel` (nil:
/// the run's default): what `Transform.wholeResampling(for:)` tells a decoder that can do it.
public struct WholeResampling: Hashable, Sendable {
    public var size: Size
    public var kernel: Kernel?

    public init(size: Size, kernel: Kernel?) {
        self.size = size
        self.kernel = kernel
    }
}
