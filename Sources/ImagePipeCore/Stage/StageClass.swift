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
    /// Each output row is made from a window of input rows, at a size that may differ from the
    /// input's (crops, scaling): the stage says which input rows a range of output rows needs
    /// (`Transform.inputRows(forOutput:of:)`, in the whole input's coordinates) and
    /// makes those output rows, at the output's full width, from a window holding exactly
    /// those input rows at the input's full width (`Transform.makeRows(_:from:)`),
    /// as libvips' regions do. RGB stays RGB. The window must not move back: a later range of
    /// output rows never needs input rows above an earlier range's.
    case resample
    /// Anything else: the stage gets the whole picture.
    case whole

    /// Why a stage of this class may not plan an `output` picture from an `input` one; nil when
    /// it may. A point or area stage keeps its input's size: a streamed run writes its rows in
    /// place, at the input's size, whatever the stage planned, so a stage that plans another size
    /// is refused before either run starts, and both runs say the same.
    package func brokenPromise(planning output: Size, from input: Size) -> String? {
        switch self {
        case .point, .area:
            output == input ? nil : "says it is a \(description) stage, whose output is its input's size, yet plans \(output) from \(input) (a bug in the stage)"
        case .resample, .whole: nil
        }
    }

    /// `point`, `area (radius 9)`, `resample`, `whole`: for `imagepipe explain`.
    public var description: String {
        switch self {
        case .point: "point"
        case let .area(radius): "area (radius \(radius))"
        case .resample: "resample"
        case .whole: "whole"
        }
    }
}
