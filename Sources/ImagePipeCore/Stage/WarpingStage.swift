/// A stage each of whose output pixels comes from a few input pixels that may lie anywhere in the
/// picture (a turn by any angle): no band of input rows makes a band of output rows, so a
/// streamed run keeps the rows before it in a tile cache (on disk past a threshold) and makes
/// each output tile from the input rectangle it names. Its `apply(to:)` on the whole picture must
/// give the same pixels: the ordinary run calls that.
public protocol WarpingStage: Transform {
    /// Whether the stage warps a `input`-sized picture; false when it only moves whole pixels
    /// (a quarter turn, which `rearrangement(for:)` says) or needs the whole picture.
    func warps(_ input: Size) -> Bool
    /// The input pixels output `rect` is made from: a rectangle of the `input`-sized picture, nil
    /// when no input pixel reaches it (all background).
    func inputRect(forOutput rect: Rect, inputSize input: Size) throws -> Rect?
    /// Output `rect` made from `source`, the input's `inputRect(forOutput: rect, inputSize:)`
    /// (nil when that is nil); the same pixels as that rectangle of `apply(to:)` on the whole.
    func render(_ rect: Rect, from source: Image?, at sourceRect: Rect?, inputSize input: Size) throws -> Image
}
