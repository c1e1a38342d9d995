/// One row of a map: the source's bytes and the target's, straight alpha, interleaved.
///
/// The pointers are valid only inside the map's closure. `sourceChannels` and
/// `targetChannels` are 3 (RGB) or 4 (RGBA); they differ when a map adds or drops alpha.
public struct RowPair {
    /// The row's index in the picture.
    public let y: Int
    /// Pixels in the row.
    public let width: Int
    public let source: UnsafePointer<UInt8>
    public let sourceChannels: Int
    public let target: UnsafeMutablePointer<UInt8>
    public let targetChannels: Int

    @inlinable public init(y: Int, width: Int, source: UnsafePointer<UInt8>, sourceChannels: Int,
                           target: UnsafeMutablePointer<UInt8>, targetChannels: Int) {
        self.y = y
        self.width = width
        self.source = source
        self.sourceChannels = sourceChannels
        self.target = target
        self.targetChannels = targetChannels
    }
}
