/// A resample stage that makes its strips from a decode reduced for it (shrink-on-load) as
/// readily as from a full one: it writes the `reduction:` forms of `inputRows` and
/// `apply(toWindow:)`, and a full decode is the reduction that reduces nothing.
public protocol ReducingResampleStage: Transform {}

extension ReducingResampleStage {
    public func inputRows(forOutput rows: Range<Int>, inputSize: Size) throws -> Range<Int> {
        try inputRows(forOutput: rows, reduction: .none(inputSize))
    }

    public func apply(toWindow window: Image, windowTop: Int, inputSize: Size, outputRows: Range<Int>) throws -> Image {
        try apply(toWindow: window, windowTop: windowTop, reduction: .none(inputSize), outputRows: outputRows)
    }
}
