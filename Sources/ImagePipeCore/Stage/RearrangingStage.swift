/// A stage that may only move whole pixels (a quarter turn, a mirror, a crop), so that a JPEG may
/// be turned or cut without decoding (`save lossless=`): a capability declared apart from the
/// stage's class. A promise the stage makes: the conformance harness holds its output to the
/// same pixels moved.
public protocol RearrangingStage: Transform {
    /// What the stage does to a picture of `input` size when it only moves whole pixels; nil
    /// when, for this picture or these arguments, it makes new pixels.
    func rearrangement(for input: Size) throws -> PixelRearrangement?
}
