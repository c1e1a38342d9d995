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

    public var description: String {
        "\(NumberFormat.text(width))x\(NumberFormat.text(height))+\(NumberFormat.text(x))+\(NumberFormat.text(y))"
    }
}
