#if canImport(Glibc)
import Glibc
#endif
import ImagePipe

/// `rotate (angle=A | pan=P) [anchor=0.5,0.5] [canvas=same] [background=transparent]` — seed
/// 003's swipe-to-dismiss turn: the picture rotated about an anchor point that may lie outside
/// it, the picture staying where it was (`frame.origin = position − anchor × size`).
public struct RotateStage: Transform, DeclaredStage {
    public static let declaration = StageDeclaration(
        "rotate", summary: "Turn about an anchor point, as the swipe-to-dismiss gesture does (seed 003)",
        example: "rotate pan=120 anchor=0.5,1.5", start: RotateStage(turn: .angle(.zero)), [
            Param(\.givenAngle, "angle", .angle(-3600...3600),
                  help: "The turn: 30deg, 0.5rad or a bare number of degrees; positive is clockwise on screen, as in UIKit."),
            Param(\.givenPan, "pan", .number(-1_000_000...1_000_000),
                  help: "A horizontal pan in pixels instead of an angle: angle = pan / width × 45°, the seed's gesture."),
            Param(\.anchor, "anchor", .anchor, default: .center,
                  help: "The pivot: unit x,y of the picture's bounds (the seed's 0.5,1.5 lies below the bottom edge), a name, or Xpx,Ypx."),
            Param(\.expandsCanvas, "canvas", .choice(["same": false, "expand": true]), default: false,
                  help: "same keeps the picture's frame (corners turn out of it); expand grows the canvas to hold the whole turned picture, centred (the anchor then changes nothing)."),
            Param(\.background, "background", .color, default: .transparent,
                  help: "What shows where the picture no longer is; transparent gives RGBA output."),
        ])

    /// The turn as written: an angle, or a pan that becomes one once the width is known.
    public enum Turn: Hashable, Sendable {
        case angle(Angle)
        case pan(Double)
    }

    // The turn is kept as its two parameters, so that `check` can refuse both or neither; `turn`
    // is the one Swift code sees, and it always holds exactly one of them.
    private var givenAngle: Angle?
    private var givenPan: Double?
    public var anchor: Anchor
    public var expandsCanvas: Bool
    public var background: Color

    public var turn: Turn {
        get { givenPan.map(Turn.pan) ?? .angle(givenAngle ?? .zero) }
        set {
            switch newValue {
            case let .angle(angle): (givenAngle, givenPan) = (angle, nil)
            case let .pan(pan): (givenAngle, givenPan) = (nil, pan)
            }
        }
    }

    public init(turn: Turn, anchor: Anchor = .center, expandsCanvas: Bool = false, background: Color = .transparent) {
        self.anchor = anchor
        self.expandsCanvas = expandsCanvas
        self.background = background
        self.turn = turn
    }

    public func check() throws(ArgumentError) {
        switch (givenAngle, givenPan) {
        case (.some, .some): throw ArgumentError.parameter("pan", "give angle or pan, not both")
        case (nil, nil): throw ArgumentError("give angle=A (like 30deg) or pan=P (pixels)")
        default: break
        }
    }

    /// The angle for a picture of this width: the seed's `p / W · π/4` for a pan.
    public func angle(forWidth width: Int) -> Angle {
        switch turn {
        case let .angle(angle): angle
        case let .pan(pan): Angle(radians: pan / Double(width) * .pi / 4)
        }
    }

    /// The output size, and where the output's (0, 0) lies in the unturned picture's frame.
    public func frame(for input: Size) -> (size: Size, origin: Point) {
        guard expandsCanvas else { return (input, .zero) }
        let radians = angle(forWidth: input.width).radians
        let (c, s) = (abs(cos(radians)), abs(sin(radians)))
        let w = Double(input.width), h = Double(input.height)
        let extent = (w * c + h * s, w * s + h * c)
        // Round up, ignoring floating-point dust, and centre the turned picture in the canvas.
        let size = Size(max(1, Int((extent.0 - 1e-6).rounded(.up))), max(1, Int((extent.1 - 1e-6).rounded(.up))))
        return (size, Point((w - Double(size.width)) / 2, (h - Double(size.height)) / 2))
    }

    public func outputSize(for input: Size) -> Size { frame(for: input).size }

    public func explanation(for input: Size) -> String? {
        let pivot = anchor.position(in: input)
        return "turn \(NumberFormat.short(angle(forWidth: input.width).degrees))° clockwise about \(NumberFormat.short(pivot.x)),\(NumberFormat.short(pivot.y)); canvas \(expandsCanvas ? "expanded" : "kept")"
    }

    public func apply(to image: Image) throws -> Image {
        let radians = angle(forWidth: image.width).radians
        if radians == 0 && !expandsCanvas { return image }
        let (size, origin) = frame(for: image.size)
        let pivot = anchor.position(in: image.size)
        return try AnchorRotation(image: image, radians: radians, pivot: pivot, background: background)
            .render(size: size, origin: origin)
    }
}
