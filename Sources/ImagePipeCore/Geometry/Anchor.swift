/// A point of reference on a picture: in unit coordinates of its bounds (`0.5,1.5` lies below
/// the bottom edge) or in pixels from its top-left corner.
public enum Anchor: Hashable, Sendable, CustomStringConvertible {
    case unit(x: Double, y: Double)
    case pixels(x: Double, y: Double)

    public static let center = Anchor.unit(x: 0.5, y: 0.5)
    public static let topLeft = Anchor.unit(x: 0, y: 0)

    /// The named anchors of the language, with their unit coordinates.
    public static let named: [(name: String, x: Double, y: Double)] = [
        ("top-left", 0, 0), ("top", 0.5, 0), ("top-right", 1, 0),
        ("left", 0, 0.5), ("center", 0.5, 0.5), ("right", 1, 0.5),
        ("bottom-left", 0, 1), ("bottom", 0.5, 1), ("bottom-right", 1, 1),
    ]

    /// The compass names ImageMagick's `-gravity`, sharp's `position` and libvips' `gravity` give
    /// the named anchors, read as those names (`north` is `top`).
    public static let compassNames = [
        "centre": "center", "north": "top", "south": "bottom", "east": "right", "west": "left",
        "northeast": "top-right", "northwest": "top-left", "southeast": "bottom-right", "southwest": "bottom-left",
    ]

    /// The named anchor `text` stands for: a name of the language, or a compass name in any case,
    /// with or without dashes (`SouthEast`, `south-east`); nil for anything else. The one reading
    /// of position words, for anchors, positions and choices of anchor names alike (`gravity=`).
    public static func name(for text: String) -> String? {
        let lower = text.lowercased()
        if named.contains(where: { $0.name == lower }) { return lower }
        return compassNames[lower.filter { $0 != "-" && $0 != "_" }]
    }

    /// The anchor's position in pixels on a picture of the given size.
    public func position(in size: Size) -> Point {
        switch self {
        case let .unit(x, y): Point(x * Double(size.width), y * Double(size.height))
        case let .pixels(x, y): Point(x, y)
        }
    }

    /// The pipeline-language form: a name where one fits, else `x,y` or `Xpx,Ypx`.
    public var description: String {
        switch self {
        case let .unit(x, y):
            if let name = Anchor.named.first(where: { $0.x == x && $0.y == y })?.name { return name }
            return "\(NumberFormat.text(x)),\(NumberFormat.text(y))"
        case let .pixels(x, y):
            return "\(NumberFormat.text(x))px,\(NumberFormat.text(y))px"
        }
    }
}
