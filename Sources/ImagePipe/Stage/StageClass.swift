/// How a stage's output rows depend on its input rows: what lets a run work in strips of rows
/// instead of whole pictures (GEGL's operation classes, libvips' regions).
public enum StageClass: Sendable, Equatable {
    /// Each output row is made from the same input row alone, at the same size and layout, RGB
    /// staying RGB: tone curves, color changes. The run may hand the stage strips of rows and
    /// take them back in place.
    case point
    /// Each output row is made from the input rows at most `radius` above and below it (the
    /// picture's edges clamped), at the same size and layout, RGB staying RGB: blurs,
    /// sharpening, median, convolution. The run hands the stage a window of rows around each
    /// strip and keeps the strip's rows of what it makes.
    case area(radius: Int)
    /// Anything else: the stage gets the whole picture.
    case whole

    /// `point`, `area (radius 9)`, `whole`: for `imagepipe explain`.
    public var description: String {
        switch self {
        case .point: "point"
        case let .area(radius): "area (radius \(radius))"
        case .whole: "whole"
        }
    }
}
