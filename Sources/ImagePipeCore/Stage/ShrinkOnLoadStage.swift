/// A stage that only shrinks, whose input may be decoded at a reduced size for it
/// (shrink-on-load: a JPEG scaled in the DCT, its planes resampled as they are decoded): a
/// capability declared apart from the stage's class. Its `makeRows(_:from:)` and, for a
/// resample stage, `inputRows(forOutput:of:)` are then given the reduced decode's rows, with the
/// geometry planned on the full picture (`StageInput.picture`).
public protocol ShrinkOnLoadStage: Transform {
    /// The smallest picture that gives the stage's full-quality output from a picture of `input`
    /// size: the planner may then decode the source reduced, at least this large. nil when every
    /// pixel is needed.
    func reducedInput(for input: Size) throws -> Size?
    /// When the stage's whole work on a picture of `input` size is resampling all of it to a
    /// smaller size (no crop, no mask, no linear light): that size and kernel, so that a decoder
    /// that resamples as it decodes (a JPEG's planes) may do the work in the stage's place; the
    /// stage is then given a decode of its output's size, mapped onto the picture whole, which
    /// it passes on as it is. nil (the default) when the stage does more.
    func wholeResampling(for input: Size) throws -> WholeResampling?
}

extension ShrinkOnLoadStage {
    public func wholeResampling(for input: Size) throws -> WholeResampling? { nil }
}
