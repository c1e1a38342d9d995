/// Write access to the pixels of an image under construction, row by row.
///
/// It is `@unchecked Sendable` so that disjoint bands of rows can be filled from several threads;
/// it must not escape the closure that builds the image.
public struct PixelWriter: @unchecked Sendable {
    @usableFromInline package let base: UnsafeMutablePointer<UInt8>
    public let rowStride: Int
    public let size: Size
    /// 3 (RGB) or 4 (RGBA, straight alpha).
    public let channelCount: Int

    /// The bytes of row `y`: `size.width × channelCount` of them, RGB(A) interleaved.
    @inlinable public func row(_ y: Int) -> UnsafeMutableBufferPointer<UInt8> {
        precondition(y >= 0 && y < size.height, "row \(y) outside 0..<\(size.height)")
        return UnsafeMutableBufferPointer(start: base + y * rowStride, count: size.width * channelCount)
    }
}
