/// What a stage's `makeRows(_:from:)` is given: rows of its input picture, where they lie, and
/// the whole input they belong to (as libvips' regions carry their place in the image).
public struct StageInput: Sendable {
    /// The rows, at the input's full width: rows `top..<top + pixels.height` of the input.
    public let pixels: Image
    /// The input's row that is `pixels`' first.
    public let top: Int
    /// The whole input: its size, and when the decode was reduced for the stage
    /// (`ShrinkOnLoadStage`) the decode's size and how the full picture maps onto it; the rows
    /// are the decode's then. `.none(size)` for a picture decoded whole.
    public let picture: DecodeReduction

    public init(pixels: Image, top: Int, picture: DecodeReduction) {
        self.pixels = pixels
        self.top = top
        self.picture = picture
    }

    /// A whole decode, reduced or not.
    public init(_ source: ReducedImage) {
        self.init(pixels: source.image, top: 0, picture: source.reduction)
    }

    /// A whole picture.
    public static func whole(_ image: Image) -> StageInput { StageInput(ReducedImage(image)) }

    /// The input's rows these are.
    public var rows: Range<Int> { top..<(top + pixels.height) }

    /// Where the rows lie in the picture, for a stage whose rows depend on it (a vignette).
    public var position: StripPosition { StripPosition(top: top, pictureSize: picture.decodedSize) }

    /// `rows` of the input, counted from `pixels`' first row.
    public func local(_ rows: Range<Int>) -> Range<Int> { (rows.lowerBound - top)..<(rows.upperBound - top) }

    /// The rows as a whole decode, for a stage that works on whole pictures only (a `whole`
    /// stage is always given every row).
    public var wholeSource: ReducedImage {
        ReducedImage(image: pixels, fullSize: picture.fullSize, mapping: picture.mapping)
    }
}
