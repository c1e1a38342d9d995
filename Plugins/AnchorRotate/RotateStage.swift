#if canImport(Glibc)
import Glibc
#endif
import ImagePipe

/// `rotate (angle=A | pan=P) [anchor=0.5,0.5] [canvas=same] [background=transparent]` — seed
/// 003's swipe-to-dismiss turn: the picture rotated about an anchor point that may lie outside
/// it, the picture staying where it was (`frame.origin = position − anchor × size`).
public struct RotateStage: Transform {
    public static let schema = Schema(
        name: "rotate",
        summary: "Turn about an anchor point, as the swipe-to-dismiss gesture does (seed 003)",
        parameters: [
            Parameter("angle", .angle(-3600...3600),
                      help: "The turn: 30deg, 0.5rad or a bare number of degrees; positive is clockwise on screen, as in UIKit."),
            Parameter("pan", .number(-1_000_000...1_000_000),
                      help: "A horizontal pan in pixels instead of an angle: angle = pan / width × 45°, the seed's gesture."),
            Parameter("anchor", .anchor, default: .anchor(.center),
                      help: "The pivot: unit x,y of the picture's bounds (the seed's 0.5,1.5 lies below the bottom edge), a name, or Xpx,Ypx."),
            Parameter("canvas", .choice(["same", "expand"]), default: .choice("same"),
                      help: "same keeps the picture's frame (corners turn out of it); expand grows the canvas to hold the whole turned picture, centred (the anchor then changes nothing)."),
            Parameter("background", .color, default: .color(.transparent),
                      help: "What shows where the picture no longer is; transparent gives RGBA output."),
        ],
        example: "rotate pan=120 anchor=0.5,1.5")

    /// The turn as written: an angle, or a pan that becomes one once the width is known.
    public enum Turn: Hashable, Sendable {
        case angle(Angle)
        case pan(Double)
    }

    public var turn: Turn
    public var anchor: Anchor
    public var expandsCanvas: Bool
    public var background: Color

    public init(turn: Turn, anchor: Anchor = .center, expandsCanvas: Bool = false, background: Color = .transparent) {
        self.turn = turn
        self.anchor = anchor
        self.expandsCanvas = expandsCanvas
        self.background = background
    }

    public init(arguments: Arguments) throws {
        switch (arguments.has("angle"), arguments.has("pan")) {
        case (true, false): turn = .angle(arguments.angle("angle"))
        case (false, true): turn = .pan(arguments.number("pan"))
        case (true, true): throw ArgumentError.parameter("pan", "give angle or pan, not both")
        case (false, false): throw ArgumentError("give angle=A (like 30deg) or pan=P (pixels)")
        }
        anchor = arguments.anchor("anchor")
        expandsCanvas = arguments.choice("canvas") == "expand"
        background = arguments.color("background")
    }

    public var arguments: Arguments {
        var values: [String: Value] = [
            "anchor": .anchor(anchor), "canvas": .choice(expandsCanvas ? "expand" : "same"), "background": .color(background),
        ]
        switch turn {
        case let .angle(angle): values["angle"] = .angle(angle)
        case let .pan(pan): values["pan"] = .number(pan)
        }
        return Arguments(values)
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
