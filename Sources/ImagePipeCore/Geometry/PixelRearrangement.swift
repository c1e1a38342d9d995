/// What a stage does when it only moves whole pixels: turns or mirrors the whole picture, or
/// cuts a rectangle out. A JPEG saved as JPEG through such stages alone can be written from the
/// file's own DCT coefficients, moved but never decoded, as jpegtran does (`save lossless=`).
public enum PixelRearrangement: Hashable, Sendable {
    case orient(Dihedral)
    case crop(Rect)
}
