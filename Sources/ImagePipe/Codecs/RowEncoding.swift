/// The encoders that write rows in order from a `RowFeed` (`Codec.encode(rows:…)`): JPEG, TIFF,
/// and PNG without a palette. A whole picture and a streamed run's rows go through the same
/// call, so the two runs write the same bytes.
enum RowEncoding {
    /// Whether `format`, saved with `options`, is written from rows in order (`Codec.takesRows`;
    /// a PNG palette is chosen from the whole picture).
    static func takesRows(_ format: ImageFormat, options: SaveOptions) -> Bool { Codecs.of(format).takesRows(options: options) }

    /// `rows` (RGB, or RGBA for PNG and TIFF) encoded as `format` (`takesRows`) into `output`,
    /// embedding `metadata`. `gray`: the rows are gray (R = G = B), which JPEG and TIFF write as
    /// one component unless an RGB profile is embedded.
    static func encode(_ rows: RowFeed, as format: ImageFormat, options: SaveOptions, gray: Bool, metadata: OutputMetadata,
                       to output: EncoderOutput) throws {
        try Codecs.of(format).encode(rows: rows, options: options, gray: gray, metadata: metadata, to: output)
    }
}
