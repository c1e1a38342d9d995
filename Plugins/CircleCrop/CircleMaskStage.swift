import ImagePipeCore

/// `circle-mask [diameter=auto] [gap=0] [fill=#00000059] [ring=false] …` — seed 000's even-odd
/// mask on the picture as it is: outside a centred circle painted with `fill`, inside untouched.
public struct CircleMaskStage: Transform, DeclaredStage {
    public static let declaration = StageDeclaration(
        "circle-mask", summary: "Dim (or cut away) everything outside a centered circle, optionally with the dashed ring (seed 000)",
        example: "circle-mask ring=true", start: CircleMaskStage(), [
            Param(\.diameter, "diameter", .number(1...1_000_000), auto: true,
                  help: "The circle's diameter in pixels; without it, the picture's shorter side minus gap."),
            Param(\.gap, "gap", .number(0...1_000_000), default: 0,
                  help: "How much smaller than the shorter side the automatic diameter is (the avatar editor keeps one)."),
            Param(\.fill, "fill", .color, default: Color(red: 0, green: 0, blue: 0, alpha: 0x59),
                  help: "Painted over the outside (by default black at alpha 0.35, as the avatar editor dims). transparent cuts the outside away."),
            Param(\.drawsRing, "ring", .boolean, default: false, help: "Stroke the circle with the dashed ring."),
            Param(\.ring.color, "ring-color", .color, default: .white, help: "The ring's color."),
            Param(\.ring.width, "ring-width", .number(0.1...1000), default: 2, help: "The ring's line width in pixels."),
            Param(\.ring.dash, "dash", .numbers(count: 2...8, each: 0...10_000), default: [4, 4],
                  help: "The ring's dash pattern: on,off[,on,off…] in pixels along the circle, from its rightmost point clockwise."),
        ])

    public var diameter: Double?
    public var gap: Double
    public var fill: Color
    public var drawsRing: Bool
    public var ring: DashedRing

    public init(diameter: Double? = nil, gap: Double = 0, fill: Color = Color(red: 0, green: 0, blue: 0, alpha: 0x59),
                drawsRing: Bool = false, ring: DashedRing = DashedRing()) {
        self.diameter = diameter
        self.gap = gap
        self.fill = fill
        self.drawsRing = drawsRing
        self.ring = ring
    }

    /// The circle's diameter on a picture of this size.
    public func circleDiameter(for input: Size) throws -> Double {
        let value = diameter ?? Double(input.shorterSide) - gap
        guard value > 0 else {
            throw StageError("gap \(NumberFormat.text(gap)) leaves no circle on a \(input) picture (its shorter side is \(input.shorterSide))")
        }
        return value
    }

    public func outputSize(for input: Size) throws -> Size {
        _ = try circleDiameter(for: input)
        return input
    }

    public func explanation(for input: Size) throws -> String? {
        "circle diameter \(NumberFormat.short(try circleDiameter(for: input))) centered; outside \(fill == .transparent ? "cut away" : "filled with \(fill)")\(drawsRing ? ", dashed ring" : "")"
    }

    /// Each row is painted from where it lies: a point stage.
    public var stageClass: StageClass { .point }

    /// A transparent fill cuts the outside away: the picture gains alpha.
    public func outputHasAlpha(inputHasAlpha: Bool) -> Bool { inputHasAlpha || fill.alpha == 0 }


    public func makeRows(_ rows: Range<Int>, from input: StageInput) throws -> Image {
        let (strip, position) = (input.pixels, input.position)
        let picture = position.pictureSize
        let center = Point(Double(picture.width) / 2, Double(picture.height) / 2)
        return try CirclePainter.mask(strip, top: position.top, center: center, radius: circleDiameter(for: picture) / 2,
                                      fill: fill, ring: drawsRing ? ring : nil)
    }
}
