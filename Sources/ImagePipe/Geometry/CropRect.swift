/// A rectangle to cut, written `X,Y,WxH`: each of the four in whole pixels or as a percentage of
/// the picture's side along its axis (`10,20,300x200`, `10%,10%,50%x50%`, `0,0,100%x50%`).
///
/// Why percentages and not unit fractions: `0,0,1x1` would be both one pixel and the whole
/// picture; a `%` sign cannot be misread.
public struct CropRect: Hashable, Sendable, CustomStringConvertible {
    public var x: ResizeSize.Side
    public var y: ResizeSize.Side
    public var width: ResizeSize.Side
    public var height: ResizeSize.Side

    public init(x: ResizeSize.Side, y: ResizeSize.Side, width: ResizeSize.Side, height: ResizeSize.Side) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    public init(_ rect: Rect) {
        self.init(x: .pixels(rect.x), y: .pixels(rect.y), width: .pixels(rect.width), height: .pixels(rect.height))
    }

    /// The rectangle in pixels on a picture of `size`: percentages place both edges at the
    /// nearest pixel (so `0%,0%,50%x…` and `50%,0%,50%x…` meet without a gap or overlap). The
    /// result may lie outside the picture; the caller refuses that.
    public func rect(in size: Size) -> Rect {
        func edges(_ origin: ResizeSize.Side, _ length: ResizeSize.Side, _ side: Int) -> (Int, Int) {
            let start = origin.pixels(of: side)
            let first = Rounding.pixels(start)
            let last = Rounding.pixels(start + length.pixels(of: side))
            return (first, last - first)
        }
        let (x, width) = edges(x, width, size.width)
        let (y, height) = edges(y, height, size.height)
        return Rect(x: x, y: y, width: width, height: height)
    }

    public var description: String { "\(x),\(y),\(width)x\(height)" }

    /// Reads `X,Y,WxH`; pixel offsets from 0, sides from 1, each at most `max` pixels;
    /// percentages from 0% (sides above 0%) to 100%.
    public init(parsing text: String, max: Int) throws(ValueError) {
        let expected = "expected X,Y,WxH in pixels or percentages, like 10,20,300x200 or 10%,10%,50%x50%"
        let parts = text.lowercased().split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count == 3 else { throw ValueError(expected) }
        let sides = parts[2].split(separator: "x", omittingEmptySubsequences: false)
        guard sides.count == 2 else { throw ValueError(expected) }
        func side(_ text: Substring, isLength: Bool) throws(ValueError) -> ResizeSize.Side {
            if text.hasSuffix("%") {
                guard let percent = DecimalNumber.parse(text.dropLast()), percent.isFinite else { throw ValueError(expected) }
                guard percent >= 0, percent <= 100, !(isLength && percent == 0) else {
                    throw ValueError(isLength ? "a side in percent must be above 0% and at most 100%" : "an offset in percent must be from 0% to 100%")
                }
                return .percent(percent)
            }
            guard let count = Int(text) else { throw ValueError(expected) }
            guard ((isLength ? 1 : 0)...max).contains(count) else {
                throw ValueError(isLength ? "a side must be from 1 to \(max) pixels" : "an offset must be from 0 to \(max) pixels")
            }
            return .pixels(count)
        }
        self.init(x: try side(parts[0], isLength: false), y: try side(parts[1], isLength: false),
                  width: try side(sides[0], isLength: true), height: try side(sides[1], isLength: true))
    }
}
