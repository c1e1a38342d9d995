/// A reduced decode's geometry without its pixels (`ReducedImage` is the same with them): the
/// picture it stands for, its own size, and the exact map between them. What the first stage of
/// a streamed run works its windows out from when the decode was reduced for it (shrink-on-load).
public struct DecodeReduction: Hashable, Sendable {
    /// The size of the full picture, which the stage plans its geometry in.
    public let fullSize: Size
    /// The size of the decode, whose rows the stage is given.
    public let decodedSize: Size
    public let mapping: PixelMapping

    public init(fullSize: Size, decodedSize: Size, mapping: PixelMapping) {
        self.fullSize = fullSize
        self.decodedSize = decodedSize
        self.mapping = mapping
    }

    /// A picture of `size` decoded whole.
    public static func none(_ size: Size) -> Self { Self(fullSize: size, decodedSize: size, mapping: .identity) }

    /// Whether the decode is the full picture.
    public var isFull: Bool { mapping == .identity && decodedSize == fullSize }

    /// A region of the full picture (its pixels) in the decode's pixels.
    public func map(_ region: Region) -> Region { mapping.map(region) }

    /// The whole full picture, in the decode's pixels.
    public var wholePicture: Region { map(Region(x: 0, y: 0, width: Double(fullSize.width), height: Double(fullSize.height))) }
}
