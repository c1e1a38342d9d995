import Foundation
import ImagePipeCore

/// `swirl [angle=120deg] [radius=100%]`: twists the middle of the picture about its center, by
/// `angle` at the center and less and less outward, to nothing at `radius` (a share of half the
/// shorter side). An output pixel comes from an input pixel anywhere on its circle about the
/// center, so no band of input rows makes a band of output rows: the stage warps. A streamed run
/// keeps its input in a tile cache, asks which input rectangle each output tile needs
/// (`inputRect`), and renders the tile from those pixels (`render`).
public struct SwirlStage: Transform, DeclaredStage, WarpingStage {
    public static let declaration = StageDeclaration("swirl", summary: "Twist the middle of the picture about its center", example: "swirl 90deg",
                                                     start: SwirlStage(), [
        Param(\.angle, "angle", .angle(-3600...3600), default: Angle(degrees: 120), positional: true,
              help: "The turn at the center, clockwise: 90deg, 1rad or a bare number of degrees."),
        Param(\.radius, "radius", .percentage(0...100), default: 100,
              help: "How far out the twist reaches, as a share of half the shorter side."),
    ])

    public var angle: Angle
    public var radius: Double // in percent

    public init(angle: Angle = Angle(degrees: 120), radius: Double = 100) {
        self.angle = angle
        self.radius = radius
    }

    public func outputSize(for input: Size) -> Size { input }

    public var stageClass: StageClass { .whole }

    /// The whole picture (a streamed run asks for tiles through `render` instead).
    public func makeRows(_ rows: Range<Int>, from input: StageInput) throws -> Image {
        let image = input.pixels, whole = Rect(x: 0, y: 0, width: image.width, height: image.height)
        return try render(whole, from: image, at: whole, inputSize: image.size)
    }

    /// The twist on a picture of a given size.
    private struct Twist {
        let centerX: Double, centerY: Double, reach: Double, radians: Double

        init(_ stage: SwirlStage, _ picture: Size) {
            centerX = Double(picture.width) / 2
            centerY = Double(picture.height) / 2
            reach = stage.radius / 100 * Double(min(picture.width, picture.height)) / 2
            radians = stage.angle.radians
        }

        func distance(_ x: Double, _ y: Double) -> Double { ((x - centerX) * (x - centerX) + (y - centerY) * (y - centerY)).squareRoot() }

        /// Where the output pixel (x, y) takes its color from: nil when it stays where it is.
        func source(_ x: Int, _ y: Int) -> (x: Double, y: Double)? {
            let dx = Double(x) + 0.5 - centerX, dy = Double(y) + 0.5 - centerY
            let distance = (dx * dx + dy * dy).squareRoot()
            guard distance < reach else { return nil }
            let share = 1 - distance / reach, turn = radians * share * share
            // The input turned back by `turn`: a point turned by it lands here.
            let c = cos(turn), s = sin(turn)
            return (centerX + dx * c + dy * s, centerY - dx * s + dy * c)
        }
    }

    public func warps(_ input: Size) -> Bool { angle.degrees != 0 && Twist(self, input).reach >= 1 }

    /// A rectangle wholly outside the twist is made from itself; one that reaches into it, from
    /// the square about the center that holds the circle of its farthest pixel (a turn keeps a
    /// pixel's distance from the center), a pixel more for the bilinear weights.
    public func inputRect(forOutput rect: Rect, inputSize input: Size) throws -> Rect? {
        let twist = Twist(self, input)
        let left = Double(rect.x) + 0.5, right = Double(rect.x + rect.width) - 0.5
        let top = Double(rect.y) + 0.5, bottom = Double(rect.y + rect.height) - 0.5
        let nearest = twist.distance(min(max(twist.centerX, left), right), min(max(twist.centerY, top), bottom))
        guard nearest < twist.reach else { return rect }
        let farthest = [(left, top), (right, top), (left, bottom), (right, bottom)].map { twist.distance($0.0, $0.1) }.max()!
        let outer = min(twist.reach, farthest)
        let x0 = max(0, min(rect.x, Int((twist.centerX - outer).rounded(.down)) - 1))
        let y0 = max(0, min(rect.y, Int((twist.centerY - outer).rounded(.down)) - 1))
        let x1 = min(input.width, max(rect.x + rect.width, Int((twist.centerX + outer).rounded(.down)) + 2))
        let y1 = min(input.height, max(rect.y + rect.height, Int((twist.centerY + outer).rounded(.down)) + 2))
        return Rect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }

    /// Each output pixel bilinear between the four input pixels about its source, which lie in
    /// `sourceRect` (`source`'s place in the input).
    public func render(_ rect: Rect, from source: Image?, at sourceRect: Rect?, inputSize input: Size) throws -> Image {
        guard let source, let at = sourceRect else { throw StageError("swirl makes every pixel from the input: it needs its input rectangle") }
        let twist = Twist(self, input), channels = source.channelCount
        return try Image.make(size: rect.size, hasAlpha: source.hasAlpha) { writer in
            for y in 0..<rect.height {
                let target = writer.row(y)
                for x in 0..<rect.width {
                    let out = target.baseAddress! + x * channels
                    guard let (sx, sy) = twist.source(rect.x + x, rect.y + y) else {
                        let from = source.row(rect.y + y - at.y).baseAddress! + (rect.x + x - at.x) * channels
                        out.update(from: from, count: channels)
                        continue
                    }
                    let fx = sx - 0.5, fy = sy - 0.5
                    let left = Int(fx.rounded(.down)), up = Int(fy.rounded(.down))
                    let wx = fx - Double(left), wy = fy - Double(up)
                    // Columns and rows of the picture, clamped at its edges, then in `source`.
                    let xs = [left, left + 1].map { min(max($0, 0), input.width - 1) - at.x }
                    let ys = [up, up + 1].map { min(max($0, 0), input.height - 1) - at.y }
                    for c in 0..<channels {
                        func value(_ i: Int, _ j: Int) -> Double { Double(source.row(ys[j])[xs[i] * channels + c]) }
                        let top = value(0, 0) * (1 - wx) + value(1, 0) * wx, bottom = value(0, 1) * (1 - wx) + value(1, 1) * wx
                        out[c] = UInt8((top * (1 - wy) + bottom * wy).rounded())
                    }
                }
            }
        }
    }
}
