#if canImport(Glibc)
import Glibc
#endif
import ImagePipeCore

/// `rotate (90|180|270 | angle=A | pan=P) [anchor=0.5,0.5] [canvas=same] [background=transparent]`
/// — seed 003's swipe-to-dismiss turn: the picture rotated about an anchor point that may lie
/// outside it, the picture staying where it was (`frame.origin = position − anchor × size`);
/// or an exact quarter turn of the whole picture (`rotate 90`, as sharp's `rotate(90)`).
///
/// Quarter turns move pixels without resampling, so they are lossless and RGB stays RGB. An
/// `angle` that is a multiple of 90° with `canvas=expand` is the same exact turn, and goes the
/// same way; so does 180° about the centre in the same canvas.
public struct RotateStage: WarpingStage, RearrangingStage, DeclaredStage {
    public static let declaration = StageDeclaration(
        "rotate", summary: "Turn about an anchor point, as a swipe-to-dismiss gesture does, or by exact quarter turns (seed 003)",
        example: "rotate pan=120 anchor=0.5,1.5", start: RotateStage(turn: .angle(.zero)), [
            Param(\.givenQuarterTurns, "turn", .choice(["90": 1, "180": 2, "270": 3]), positional: true,
                  help: "An exact quarter turn of the whole picture, clockwise: 90, 180 or 270 (rotate 90). Lossless: pixels are moved, not resampled; 90 and 270 swap the sides. For other angles, angle=."),
            Param(\.givenAngle, "angle", .angle(-3600...3600),
                  help: "The turn: 30deg, 0.5rad or a bare number of degrees; positive is clockwise on screen, as in UIKit."),
            Param(\.givenPan, "pan", .number(-1_000_000...1_000_000),
                  help: "A horizontal pan in pixels instead of an angle: angle = pan / width × 45°, as a swipe-to-dismiss gesture turns."),
            Param(\.anchor, "anchor", .anchor, default: .center,
                  help: "The pivot: unit x,y of the picture's bounds (0.5,1.5 lies below the bottom edge, where a swipe pivots), a name, or Xpx,Ypx."),
            Param(\.expandsCanvas, "canvas", .choice(["same": false, "expand": true]), default: false,
                  help: "same keeps the picture's frame (corners turn out of it); expand grows the canvas to hold the whole turned picture, centered (the anchor then changes nothing)."),
            Param(\.background, "background", .color, default: .transparent,
                  help: "What shows where the picture no longer is; transparent gives RGBA output."),
        ])

    /// The turn as written: an angle, or a pan that becomes one once the width is known.
    public enum Turn: Hashable, Sendable {
        case angle(Angle)
        case pan(Double)
        /// Clockwise quarter turns of the whole picture: 1, 2 or 3.
        case quarterTurns(Int)
    }

    // The turn is kept as its two parameters, so that `check` can refuse both or neither; `turn`
    // is the one Swift code sees, and it always holds exactly one of them.
    private var givenAngle: Angle?
    private var givenPan: Double?
    private var givenQuarterTurns: Int?
    public var anchor: Anchor
    public var expandsCanvas: Bool
    public var background: Color

    public var turn: Turn {
        get { givenQuarterTurns.map(Turn.quarterTurns) ?? givenPan.map(Turn.pan) ?? .angle(givenAngle ?? .zero) }
        set {
            switch newValue {
            case let .angle(angle): (givenAngle, givenPan, givenQuarterTurns) = (angle, nil, nil)
            case let .pan(pan): (givenAngle, givenPan, givenQuarterTurns) = (nil, pan, nil)
            case let .quarterTurns(turns): (givenAngle, givenPan, givenQuarterTurns) = (nil, nil, turns)
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
        if givenQuarterTurns != nil {
            if givenAngle != nil { throw ArgumentError.parameter("angle", "give a quarter turn (90, 180, 270) or angle=, not both") }
            if givenPan != nil { throw ArgumentError.parameter("pan", "give a quarter turn (90, 180, 270) or pan=, not both") }
            // A quarter turn is of the whole picture onto its own canvas: these would change nothing.
            if anchor != .center { throw ArgumentError.parameter("anchor", "a quarter turn turns the whole picture; anchor= goes with angle= or pan=") }
            if expandsCanvas { throw ArgumentError.parameter("canvas", "a quarter turn always fits its canvas; canvas= goes with angle= or pan=") }
            if background != .transparent { throw ArgumentError.parameter("background", "a quarter turn leaves no background showing; background= goes with angle= or pan=") }
            return
        }
        switch (givenAngle, givenPan) {
        case (.some, .some): throw ArgumentError.parameter("pan", "give angle or pan, not both")
        case (nil, nil): throw ArgumentError("give a quarter turn (rotate 90), angle=A (like 30deg) or pan=P (pixels)")
        default: break
        }
    }

    /// The angle for a picture of this width: the seed's `p / W · π/4` for a pan.
    public func angle(forWidth width: Int) -> Angle {
        switch turn {
        case let .angle(angle): angle
        case let .pan(pan): Angle(radians: pan / Double(width) * .pi / 4)
        case let .quarterTurns(turns): Angle(degrees: Double(turns) * 90)
        }
    }

    /// The clockwise quarter turns this stage makes exactly, nil when it must resample: a
    /// quarter turn, or an angle that is a multiple of 90° with `canvas=expand` (the canvas is
    /// then the turned picture itself, whatever the anchor), or 180° about the centre.
    public func exactQuarterTurns(forWidth width: Int) -> Int? {
        if case let .quarterTurns(turns) = turn { return turns }
        let degrees = angle(forWidth: width).degrees
        guard degrees.remainder(dividingBy: 90) == 0 else { return nil }
        let turns = ((Int(degrees / 90) % 4) + 4) % 4
        if expandsCanvas || turns == 0 || (turns == 2 && anchor == .center) { return turns }
        return nil
    }

    /// The output size, and where the output's (0, 0) lies in the unturned picture's frame.
    public func frame(for input: Size) -> (size: Size, origin: Point) {
        if let turns = exactQuarterTurns(forWidth: input.width) {
            return (turns % 2 == 1 ? input.transposed : input, .zero)
        }
        guard expandsCanvas else { return (input, .zero) }
        let radians = angle(forWidth: input.width).radians
        let (c, s) = (abs(cos(radians)), abs(sin(radians)))
        let w = Double(input.width), h = Double(input.height)
        let extent = (w * c + h * s, w * s + h * c)
        // Round up, ignoring floating-point dust.
        let size = Size(max(1, Int((extent.0 - 1e-6).rounded(.up))), max(1, Int((extent.1 - 1e-6).rounded(.up))))
        // The canvas is centred on where the picture's centre goes: it turns about the pivot,
        // to pivot + R(θ)(centre − pivot) (clockwise on screen, y down). Centring it on the
        // unturned centre cut the picture off for any anchor but the centre.
        let pivot = anchor.position(in: input)
        let (cosine, sine) = (cos(radians), sin(radians))
        let d = Point(w / 2 - pivot.x, h / 2 - pivot.y)
        let turned = Point(pivot.x + cosine * d.x - sine * d.y, pivot.y + sine * d.x + cosine * d.y)
        return (size, Point(turned.x - Double(size.width) / 2, turned.y - Double(size.height) / 2))
    }

    public func outputSize(for input: Size) -> Size { frame(for: input).size }

    public func explanation(for input: Size) -> String? {
        if let turns = exactQuarterTurns(forWidth: input.width) {
            return turns == 0 ? "no turn" : "exact turn \(turns * 90)° clockwise: pixels moved, not resampled"
        }
        let pivot = anchor.position(in: input)
        return "turn \(NumberFormat.short(angle(forWidth: input.width).degrees))° clockwise about \(NumberFormat.short(pivot.x)),\(NumberFormat.short(pivot.y)); canvas \(expandsCanvas ? "expanded" : "kept")"
    }

    public func rearrangement(for input: Size) -> PixelRearrangement? {
        exactQuarterTurns(forWidth: input.width).map { .orient(Dihedral(quarterTurns: $0)) }
    }

    public func makeRows(_ rows: Range<Int>, from input: StageInput) throws -> Image {
        let image = input.pixels
        if let turns = exactQuarterTurns(forWidth: image.width) { return try image.turned(quarterTurns: turns) }
        let radians = angle(forWidth: image.width).radians
        let (size, origin) = frame(for: image.size)
        let pivot = anchor.position(in: image.size)
        return try AnchorRotation(image: image, radians: radians, pivot: pivot, background: background)
            .render(size: size, origin: origin)
    }

    /// A turn by any angle gains alpha from a translucent background; a quarter turn only moves
    /// pixels. (A pan's angle depends on the width: it is taken to resample.)
    public func outputHasAlpha(inputHasAlpha: Bool) -> Bool {
        if case .pan = turn { return inputHasAlpha || !background.isOpaque }
        return inputHasAlpha || (exactQuarterTurns(forWidth: 1) == nil && !background.isOpaque)
    }

    /// Streamed, a turn by any angle makes each output tile from the input pixels under it.
    public func warps(_ input: Size) -> Bool { exactQuarterTurns(forWidth: input.width) == nil }

    private func rotation(part: Image?, at rect: Rect?, of input: Size) -> AnchorRotation {
        AnchorRotation(part: part, at: rect, of: input, radians: angle(forWidth: input.width).radians,
                       pivot: anchor.position(in: input), background: background)
    }

    public func inputRect(forOutput rect: Rect, inputSize input: Size) throws -> Rect? {
        rotation(part: nil, at: nil, of: input).sourceRect(forOutput: rect, origin: frame(for: input).origin)
    }

    public func render(_ rect: Rect, from source: Image?, at sourceRect: Rect?, inputSize input: Size) throws -> Image {
        try rotation(part: source, at: sourceRect, of: input).render(rect, origin: frame(for: input).origin)
    }
}
