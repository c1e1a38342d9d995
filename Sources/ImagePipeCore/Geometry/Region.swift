/// A rectangle in fractional pixels, for exact sampling windows (where a crop and a scale meet).
public struct Region: Hashable, Sendable, CustomStringConvertible {
    public var x: Double
    public var y: Double
    public var width: Double
    public var height: Double

    public init(x: Double, y: Double, width: Double, height: Double) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    public var maxX: Double { x + width }
    public var maxY: Double { y + height }
    public var center: Point { Point(x + width / 2, y + height / 2) }

    /// The whole pixels the region covers when its edges lie on the pixel grid, to within a
    /// millionth of a pixel (a picture's extent mapped onto a decode resampled to a size lands a
    /// rounding off it); nil otherwise. Resampling such a region to its own size is a crop.
    public var pixelRect: Rect? {
        // Asked for every strip of a resample stage: no allocation.
        func onGrid(_ value: Double) -> Int? {
            let nearest = value.rounded()
            return abs(value - nearest) <= 1e-6 && abs(nearest) < 1e15 ? Int(nearest) : nil
        }
        guard let left = onGrid(x), let top = onGrid(y), let right = onGrid(maxX), let bottom = onGrid(maxY) else { return nil }
        return Rect(x: left, y: top, width: right - left, height: bottom - top)
    }

    public var description: String {
        "\(NumberFormat.text(width))x\(NumberFormat.text(height))+\(NumberFormat.text(x))+\(NumberFormat.text(y))"
    }
}
