/// What a format's codec can do, declared so that loading, planning, saving, `imagepipe info`
/// and `imagepipe serve` ask it rather than naming formats or libraries: docs/formats.md's table
/// shows one row per codec, and `CodecRegistryTests` holds each declaration to what the codec
/// implements.
public struct CodecCapabilities: Sendable {
    /// The library that decodes the format.
    public let reader: String
    /// The library that encodes it; nil when ImagePipe does not write it.
    public let writer: String?
    /// The file extensions the format goes by, lower-case, the usual one first (what an output
    /// file is given); each also names the format where a format is asked for by name.
    public let fileExtensions: [String]
    /// The media type IANA registers for the format (what `imagepipe serve` answers with and a
    /// IIIF manifest names); nil where none is.
    public var mediaType: String?
    /// Decodes reduced: a JPEG at 1/2, 1/4 or 1/8 of the size (its DCT scaling), a TIFF pyramid
    /// at one of its smaller levels. A plan that only shrinks decodes no more pixels than it
    /// needs (shrink-on-load); `Codec.reducedSize(of:atLeast:)` says how far.
    public var reducedDecode = false
    /// Hands out rows in order as it decodes them, so that a run can stream them through the
    /// stages (`Codec.rowSource`, `Pipeline+Streaming`).
    public var rowsInOrder = false
    /// Encodes rows in order as they come, so that a run can stream the stages' strips into it
    /// (`Codec.encode(rows:…)`; PNG without a palette).
    public var writesRows = false
    /// Decodes only a rectangle of the picture: a run whose first stage reads one
    /// (`Plan.decodeRegion`, `LoadOptions.region`) has only the TIFF strips or tiles under it
    /// decoded, or the JPEG rows down to its bottom, of which those above it are only
    /// entropy-decoded and only its iMCU columns made.
    public var regions = false
    /// Decodes only from the whole file in memory (the library takes no stream, or the file must
    /// be walked to its end first, to count an animation's frames).
    public var wholeFile = false
    /// Holds several frames (`Codec.frameDecoder`, `Codec.animationEncoder`).
    public var frames = false
    /// The metadata it carries: `exif`, `icc`, `xmp`.
    public var metadata: [String] = []
    /// The metadata its encoder embeds, of `exif`, `icc`, `xmp`: a save keeps only these, and
    /// writes the pixels in sRGB when `icc` is not one of them.
    public var writtenMetadata: [String] = []
    /// Whether a written file holds an alpha channel (GIF's one level of transparency counts); a
    /// picture with alpha is flattened onto the save's background for a format without.
    public var writesAlpha = true
    /// Turns, mirrors and crops its files without decoding them (a JPEG's coefficients moved,
    /// as jpegtran moves them): what `lossless=` asks of a save (`Pipeline+LosslessJPEG`).
    public var movesLosslessly = false
}
