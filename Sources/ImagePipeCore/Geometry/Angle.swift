/// A turn, kept in degrees so that the pipeline text `30deg` round-trips exactly.
/// Positive is clockwise on screen (y points down), as in UIKit and CSS.
public struct Angle: Hashable, Sendable, CustomStringConvertible {
    public var degrees: Double

    public init(degrees: Double) { self.degrees = degrees }
    public init(radians: Double) { degrees = radians * 180 / .pi }

    public var radians: Double { degrees * .pi / 180 }
    public static let zero = Angle(degrees: 0)

    /// The pipeline-language form, `30deg`.
    public var description: String { "\(NumberFormat.text(degrees))deg" }
}
