/// A position or offset in (possibly fractional) pixels or unit coordinates.
public struct Point: Hashable, Sendable, CustomStringConvertible {
    public var x: Double
    public var y: Double

    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }

    public init(_ x: Double, _ y: Double) {
        self.init(x: x, y: y)
    }

    public static let zero = Point(0, 0)

    /// The pipeline-language form, `x,y`.
    public var description: String { "\(NumberFormat.text(x)),\(NumberFormat.text(y))" }
}
