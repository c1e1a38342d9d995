/// A decoded picture with the picture it stands for: the same one, or a smaller decode of it
/// (shrink-on-load) with the exact map from the full picture's pixels onto its own.
public struct ReducedImage: Sendable {
    public let image: Image
    /// The size of the full picture, which the stage plans its geometry in.
    public let fullSize: Size
    public let mapping: PixelMapping

    public init(image: Image, fullSize: Size, mapping: PixelMapping) {
        self.image = image
        self.fullSize = fullSize
        self.mapping = mapping
    }

    /// A picture that stands for itself.
    public init(_ image: Image) {
        self.init(image: image, fullSize: image.size, mapping: .identity)
    }

    /// Whether the picture is the full one.
    public var isFull: Bool { mapping == .identity && image.size == fullSize }

    /// A region of the full picture (its pixels) in this picture's pixels.
    public func map(_ region: Region) -> Region { mapping.map(region) }

    /// A region of this picture's pixels in the full picture's.
    public func unmap(_ region: Region) -> Region { mapping.unmap(region) }

    /// The whole full picture, in this picture's pixels.
    public var wholePicture: Region {
        map(Region(x: 0, y: 0, width: Double(fullSize.width), height: Double(fullSize.height)))
    }
}
