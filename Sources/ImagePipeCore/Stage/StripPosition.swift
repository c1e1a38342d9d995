/// Where the rows a stage is given lie in the picture it works on: the first row and the
/// picture's size, in the picture's own coordinates (as libvips' regions carry them). A stage
/// whose rows depend on where they lie (a vignette, an overlay at a place) makes a strip's rows
/// from this exactly as it makes them in the whole picture, so a streamed run shows no bands.
public struct StripPosition: Sendable, Equatable {
    /// The picture's row that is the strip's first.
    public var top: Int
    /// The whole picture's size.
    public var pictureSize: Size

    public init(top: Int, pictureSize: Size) {
        self.top = top
        self.pictureSize = pictureSize
    }

    /// A whole `size` picture, from its first row.
    public static func whole(_ size: Size) -> StripPosition { StripPosition(top: 0, pictureSize: size) }
}
