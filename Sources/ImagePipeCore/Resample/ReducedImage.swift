/// A decoded picture with the picture it stands for: the same one, or a smaller decode of it
/// (shrink-on-load) with the exact map from the full picture's pixels onto its own.
public struct ReducedImage: Sendable {
    public let image: Image
    /// The full picture's size and the map onto this picture's pixels.
    public let reduction: DecodeReduction

    public init(image: Image, fullSize: Size, mapping: PixelMapping) {
        self.image = image
        reduction = DecodeReduction(fullSize: fullSize, decodedSize: image.size, mapping: mapping)
    }

    /// A picture that stands for itself.
    public init(_ image: Image) {
        self.init(image: image, fullSize: image.size, mapping: .identity)
    }

    /// The size of the full picture, which the stage plans its geometry in.
    public var fullSize: Size { reduction.fullSize }
    public var mapping: PixelMapping { reduction.mapping }

    /// Whether the picture is the full one.
    public var isFull: Bool { reduction.isFull }

    /// A region of the full picture (its pixels) in this picture's pixels.
    public func map(_ region: Region) -> Region { reduction.map(region) }

    /// A region of this picture's pixels in the full picture's.
    public func unmap(_ region: Region) -> Region { mapping.unmap(region) }

    /// The whole full picture, in this picture's pixels.
    public var wholePicture: Region { reduction.wholePicture }
}
