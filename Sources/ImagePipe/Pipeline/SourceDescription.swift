/// What a source will produce, known from the file header before decoding: its size, and the
/// sizes a decode may shrink to on the way (JPEG's DCT scaling by 1/2, 1/4 or 1/8).
public struct SourceDescription: Sendable {
    /// The size of a full decode (after EXIF orientation, when the source applies it).
    public var size: Size
    /// The file's header, when the source read one.
    public var header: ImageHeader?
    /// Whether the decode turns the stored picture a quarter (EXIF orientation 5–8, applied).
    public var turned: Bool

    public init(size: Size, header: ImageHeader? = nil, turned: Bool = false) {
        self.size = size
        self.header = header
        self.turned = turned
    }

    /// The size a decode allowed to shrink to no smaller than `atLeast` gives: the smallest DCT
    /// scaling of a JPEG that is still that large, else the full size.
    public func reducedSize(atLeast target: Size) -> Size {
        guard let header, header.format == "jpeg" else { return size }
        let reduced = PixbufDecoder.jpegReducedSize(stored: header.storedSize, atLeast: turned ? target.transposed : target)
        return turned ? reduced.transposed : reduced
    }
}
