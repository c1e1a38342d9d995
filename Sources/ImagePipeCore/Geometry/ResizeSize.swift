/// The size a `resize` asks for: a width, a height or both, each in pixels or as a percentage
/// of the picture's own side; a missing side follows the aspect ratio.
///
/// Text: `640x480`, `640x` (width only), `x480` (height only), `50%` (both sides at 50%),
/// `50%x25%`, `640x50%`. A bare number (`640`) is a square box, `640x640`, as `fit 640`,
/// `vips thumbnail` and Pillow's `thumbnail` read it (ImageMagick's `-resize 640` is a width:
/// write `640x` for that).
public struct ResizeSize: Hashable, Sendable, CustomStringConvertible {
    /// One side: whole pixels, or percent of the picture's side.
    public enum Side: Hashable, Sendable, CustomStringConvertible {
        case pixels(Int)
        case percent(Double)

        /// The side in pixels for a picture side of `length` pixels (unrounded for percentages).
        public func pixels(of length: Int) -> Double {
            switch self {
            case let .pixels(count): Double(count)
            case let .percent(percent): Double(length) * percent / 100
            }
        }

        public var description: String {
            switch self {
            case let .pixels(count): String(count)
            case let .percent(percent): "\(NumberFormat.text(percent))%"
            }
        }
    }

    public var width: Side?
    public var height: Side?

    /// At least one side must be given.
    public init(width: Side?, height: Side?) {
        precondition(width != nil || height != nil, "a resize size needs a width or a height")
        self.width = width
        self.height = height
    }

    public init(_ width: Int, _ height: Int) { self.init(width: .pixels(width), height: .pixels(height)) }

    /// The pipeline-language form; `parsing` reads it back to the same value.
    public var description: String {
        if case let .percent(p)? = width, width == height { return "\(NumberFormat.text(p))%" }
        return "\(width?.description ?? "")x\(height?.description ?? "")"
    }

    /// Reads `[W]x[H]` or `P%`; each pixel side from 1 to `max`, each percentage above 0 up to
    /// 10000%.
    public init(parsing text: String, max: Int) throws(ValueError) {
        let expected = "expected a size WxH, Wx (width only), xH (height only), N (a square box) or percentages (50%, 50%x25%)"
        let parts = text.lowercased().split(separator: "x", omittingEmptySubsequences: false)
        if parts.count == 1 {
            guard text.hasSuffix("%") else {
                guard Int(text) != nil else { throw ValueError(expected) }
                // A square box, as `fit` reads one number.
                let side = try Self.side(parts[0], max: max, expected: expected)
                self.init(width: side, height: side)
                return
            }
            let side = try Self.side(parts[0], max: max, expected: expected)
            self.init(width: side, height: side)
            return
        }
        guard parts.count == 2, !(parts[0].isEmpty && parts[1].isEmpty) else { throw ValueError(expected) }
        self.init(width: parts[0].isEmpty ? nil : try Self.side(parts[0], max: max, expected: expected),
                  height: parts[1].isEmpty ? nil : try Self.side(parts[1], max: max, expected: expected))
    }

    private static func side(_ text: Substring, max: Int, expected: String) throws(ValueError) -> Side {
        if text.hasSuffix("%") {
            guard let percent = DecimalNumber.parse(text.dropLast()), percent.isFinite else { throw ValueError(expected) }
            guard percent > 0, percent <= 10_000 else { throw ValueError("a percentage must be above 0% and at most 10000%") }
            return .percent(percent)
        }
        guard let count = Int(text) else { throw ValueError(expected) }
        guard (1...max).contains(count) else { throw ValueError("each side must be from 1 to \(max) pixels") }
        return .pixels(count)
    }
}
