/// A rectangle to cut, written `X,Y,WxH`: each of the four in whole pixels or as a percentage of
/// the picture's side along its axis (`10,20,300x200`, `10%,10%,50%x50%`, `0,0,100%x50%`); or
/// only its size, `WxH`, for the stage to place (ImageMagick's `-gravity … -crop WxH`).
///
/// Why percentages and not unit fractions: `0,0,1x1` would be both one pixel and the whole
/// picture; a `%` sign cannot be misread.
public struct CropRect: Hashable, Sendable, CustomStringConvertible {
    /// The top-left corner; nil when only the size is given.
    public var x: ResizeSize.Side?
    public var y: ResizeSize.Side?
    public var width: ResizeSize.Side
    public var height: ResizeSize.Side

    public init(x: ResizeSize.Side?, y: ResizeSize.Side?, width: ResizeSize.Side, height: ResizeSize.Side) {
        precondition((x == nil) == (y == nil), "a corner has both coordinates or neither")
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    public init(_ rect: Rect) {
        self.init(x: .pixels(rect.x), y: .pixels(rect.y), width: .pixels(rect.width), height: .pixels(rect.height))
    }

    /// Whether the corner is given (`X,Y,WxH`), not left to the stage (`WxH`).
    public var isPlaced: Bool { x != nil }

    /// The size in pixels on a picture of `size`, for a rectangle the stage places.
    public func size(in size: Size) -> Size {
        Size(max(1, Rounding.pixels(width.pixels(of: size.width))), max(1, Rounding.pixels(height.pixels(of: size.height))))
    }

    /// The rectangle in pixels on a picture of `size`: percentages place both edges at the
    /// nearest pixel (so `0%,0%,50%x…` and `50%,0%,50%x…` meet without a gap or overlap). The
    /// result may lie outside the picture; the caller refuses that. A rectangle without a
    /// corner is put at 0,0.
    public func rect(in size: Size) -> Rect {
        func edges(_ origin: ResizeSize.Side, _ length: ResizeSize.Side, _ side: Int) -> (Int, Int) {
            let start = origin.pixels(of: side)
            let first = Rounding.pixels(start)
            let last = Rounding.pixels(start + length.pixels(of: side))
            return (first, last - first)
        }
        let (x, width) = edges(x ?? .pixels(0), width, size.width)
        let (y, height) = edges(y ?? .pixels(0), height, size.height)
        return Rect(x: x, y: y, width: width, height: height)
    }

    public var description: String {
        guard let x, let y else { return "\(width)x\(height)" }
        return "\(x),\(y),\(width)x\(height)"
    }

    /// Reads `X,Y,WxH` or `WxH`; pixel offsets from 0, sides from 1, each at most `max` pixels;
    /// percentages from 0% (sides above 0%) to 100%.
    ///
    /// ImageMagick's geometry `WxH+X+Y` (`400x300+10+20`) is read as `X,Y,WxH`: the same
    /// rectangle, with no other reading here.
    public init(parsing text: String, max: Int) throws(ValueError) {
        let expected = "expected X,Y,WxH or WxH in pixels or percentages, like 10,20,300x200, 10%,10%,50%x50% or 300x200"
        let parts = try Self.imageMagickGeometry(text) ?? text.lowercased().split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count == 3 || parts.count == 1 else { throw ValueError(expected) }
        let sides = parts[parts.count - 1].split(separator: "x", omittingEmptySubsequences: false)
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
        let corner = parts.count == 3 ? (try side(parts[0], isLength: false), try side(parts[1], isLength: false)) : nil
        self.init(x: corner?.0, y: corner?.1, width: try side(sides[0], isLength: true), height: try side(sides[1], isLength: true))
    }

    /// `WxH+X+Y` as the parts of `X,Y,WxH`; nil when `text` is not in that form. A negative
    /// offset (`-10`, outside the picture) is refused, as any rectangle not inside it.
    private static func imageMagickGeometry(_ text: String) throws(ValueError) -> [Substring]? {
        guard let sign = text.firstIndex(where: { $0 == "+" || $0 == "-" }), !text.contains(",") else { return nil }
        let size = text[..<sign], offsets = text[sign...]
        guard size.contains("x"), offsets.first == "+" || offsets.first == "-" else { return nil }
        let numbers = offsets.dropFirst().split(omittingEmptySubsequences: false, whereSeparator: { $0 == "+" || $0 == "-" })
        guard numbers.count == 2 else { return nil }
        guard !offsets.contains("-") else {
            throw ValueError("ImageMagick's \(text) reaches outside the picture (a negative offset); the rectangle must lie inside it: X,Y,WxH with X and Y from 0")
        }
        return [numbers[0], numbers[1], size.lowercased()[...]]
    }
}
