/// One output row of a convolution, before it is stored: the filtered premultiplied pixels
/// (`SIMD4<Float>`, 0…1, see `PremultipliedPixels`) beside the source row and the target row,
/// so a filter can combine them (an unsharp mask adds the difference back to the source).
/// It may cover a strip of the row's columns: `x` is its first, and the pointers start there.
public struct FilteredRow {
    public let y: Int
    /// The first column of the strip.
    public let x: Int
    /// Pixels in the strip.
    public let width: Int
    /// 3 or 4, for both source and target.
    public let channels: Int
    public let filtered: UnsafePointer<SIMD4<Float>>
    public let source: UnsafePointer<UInt8>
    public let target: UnsafeMutablePointer<UInt8>

    /// Stores the filtered pixels as they are (alpha divided out, rounded, clamped).
    public func store() {
        PremultipliedPixels.store(filtered, count: width, channels: channels, into: target)
    }
}
