/// How one picture's pixel coordinates map onto another's along each axis: `x · scale + offset`.
/// A reduced decode (shrink-on-load) is such a map of the full picture, and stages map their
/// windows through it exactly instead of stretching the reduced picture over the full one.
public struct PixelMapping: Hashable, Sendable {
    public var scaleX: Double
    public var scaleY: Double
    public var offsetX: Double
    public var offsetY: Double

    public init(scaleX: Double, scaleY: Double, offsetX: Double = 0, offsetY: Double = 0) {
        self.scaleX = scaleX
        self.scaleY = scaleY
        self.offsetX = offsetX
        self.offsetY = offsetY
    }

    public static let identity = PixelMapping(scaleX: 1, scaleY: 1)

    /// A region of the full picture in the mapped picture's pixels.
    public func map(_ region: Region) -> Region {
        Region(x: region.x * scaleX + offsetX, y: region.y * scaleY + offsetY,
               width: region.width * scaleX, height: region.height * scaleY)
    }

    /// A region of the mapped picture back in the full picture's pixels (the inverse of `map`).
    public func unmap(_ region: Region) -> Region {
        Region(x: (region.x - offsetX) / scaleX, y: (region.y - offsetY) / scaleY,
               width: region.width / scaleX, height: region.height / scaleY)
    }

    /// The map of a JPEG decoded at `1/denominator` in the DCT, after EXIF `orientation`:
    /// libjpeg rounds each reduced side up, so the last stored row and column stand for less
    /// than `denominator` pixels; where the orientation flips an axis, that partial pixel comes
    /// first, and the picture starts that fraction of a pixel in.
    public static func dctReduction(denominator: Int, fullSize: Size, reducedSize: Size, orientation: Int) -> PixelMapping {
        let scale = 1 / Double(denominator)
        // Axes flipped on screen by each EXIF orientation (2 mirror, 3 half turn, 4 flip, 5
        // transpose, 6 quarter turn clockwise, 7 transverse, 8 quarter turn anticlockwise).
        let flipsX = [2, 3, 6, 7].contains(orientation), flipsY = [3, 4, 7, 8].contains(orientation)
        return PixelMapping(
            scaleX: scale, scaleY: scale,
            offsetX: flipsX ? Double(reducedSize.width) - Double(fullSize.width) * scale : 0,
            offsetY: flipsY ? Double(reducedSize.height) - Double(fullSize.height) * scale : 0)
    }
}
