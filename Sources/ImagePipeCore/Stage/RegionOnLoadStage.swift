/// A resample stage that reads only a rectangle of its input (a crop, a resize of a region):
/// when it comes first, a decoder that can pass over what lies outside (a TIFF's strips and
/// tiles, a JPEG's rows and columns) decodes only that rectangle. A capability declared apart from
/// the stage's class; the rows are the class's own (`inputRows(forOutput:of:)` over the whole
/// output).
public protocol RegionOnLoadStage: Transform {
    /// The input columns the stage reads to make all of its output from a decode of `input`.
    func inputColumns(of input: DecodeReduction) throws -> Range<Int>
}
