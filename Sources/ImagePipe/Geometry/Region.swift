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

    /// The region in the coordinates of a picture `from` scaled to `to` (a reduced decode).
    public func mapped(from logical: Size, to actual: Size) -> Region {
        let sx = Double(actual.width) / Double(logical.width), sy = Double(actual.height) / Double(logical.height)
        return Region(x: x * sx, y: y * sy, width: width * sx, height: height * sy)
    }

    public var description: String {
        "\(NumberFormat.text(width))x\(NumberFormat.text(height))+\(NumberFormat.text(x))+\(NumberFormat.text(y))"
    }
}
