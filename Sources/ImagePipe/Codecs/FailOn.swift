/// How much damage a decode refuses, as libvips' `fail_on`: each level refuses what the one
/// before it does, and more. The default, `error`, refuses every picture that would come out
/// wrong; `none` takes what the decoder makes of any data.
public enum FailOn: String, CaseIterable, Comparable, Sendable {
    /// Take whatever the decoder makes of the data (a cut file ends in gray or in its coarser scans).
    case none
    /// Refuse data that ends early: a cut file, a compressed stream that stops before the last row.
    case truncated
    /// Also refuse damaged data: a failed checksum, corrupt entropy-coded, LZW or VP8 data.
    case error
    /// Also refuse what a decoder only warns of and decodes all the same: a damaged ancillary PNG
    /// chunk, a JPEG's unknown JFIF version or Adobe transform, a libtiff warning.
    case warning

    public static func < (a: FailOn, b: FailOn) -> Bool { allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)! }
}
