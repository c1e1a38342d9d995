/// An axis-aligned rectangle in whole pixels: origin at the top-left, y down.
public struct Rect: Hashable, Sendable, CustomStringConvertible {
    public var x: Int
    public var y: Int
    public var width: Int
    public var height: Int

    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    public init(origin: (x: Int, y: Int), size: Size) {
        self.init(x: origin.x, y: origin.y, width: size.width, height: size.height)
    }

    public var size: Size { Size(width, height) }
    public var maxX: Int { x + width }
    public var maxY: Int { y + height }

    /// Whether the rectangle lies wholly inside a picture of the given size.
    public func isInside(_ bounds: Size) -> Bool {
        x >= 0 && y >= 0 && width > 0 && height > 0 && maxX <= bounds.width && maxY <= bounds.height
    }

    /// The part both rectangles cover; nil when they do not overlap.
    public func intersection(_ other: Rect) -> Rect? {
        let left = max(x, other.x), top = max(y, other.y)
        let right = min(maxX, other.maxX), bottom = min(maxY, other.maxY)
        return right > left && bottom > top ? Rect(x: left, y: top, width: right - left, height: bottom - top) : nil
    }

    /// `WxH+X+Y`, the form ImageMagick users know from `-crop`.
    public var description: String { "\(width)x\(height)+\(x)+\(y)" }
}
