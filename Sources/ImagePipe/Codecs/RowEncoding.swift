/// The encoders that write rows in order from a `RowFeed`: JPEG, TIFF, and PNG without a
/// palette. A whole picture and a streamed run's rows go through the same call, so the two runs
/// write the same bytes.
enum RowEncoding {
    /// Whether `format`, saved with `options`, is written from rows in order (`Codec.writesRows`;
    /// a PNG palette is chosen from the whole picture).
    static func takesRows(_ format: ImageFormat, options: SaveOptions) -> Bool {
        guard let source = SourceFormat(rawValue: format.rawValue), Codec.of(source).writesRows else { return false }
        return !(format == .png && options.writesPalette)
    }

    /// `rows` (RGB, or RGBA for PNG and TIFF) encoded as `format` (`takesRows`) into `output`,
    /// embedding `metadata`. `gray`: the rows are gray (R = G = B), which JPEG and TIFF write as
    /// one component unless an RGB profile is embedded.
    static func encode(_ rows: RowFeed, as format: ImageFormat, options: SaveOptions, gray: Bool, metadata: OutputMetadata,
                       to output: EncoderOutput) throws {
        let quality = options.quality(for: format)
        switch format {
        case .jpeg:
            precondition(rows.channels == 3, "flatten before encoding JPEG")
            try JPEGEncoder.encode(rows, quality: quality, chroma: options.chroma, gray: gray, progressive: options.progressive,
                                   optimizeCoding: options.optimizesCoding(size: rows.size, gray: gray && metadata.icc == nil, quality: quality),
                                   metadata: metadata, to: output)
        case .tiff:
            try TIFFEncoder.encode(rows, gray: gray && rows.channels == 3 && metadata.icc == nil, compression: options.tiffCompression,
                                   level: options.compression, quality: options.quality ?? SaveOptions.defaultQuality(.jpeg),
                                   tile: options.tile, metadata: metadata, to: output)
        case .png:
            try PNGEncoder.encode(rows, compression: options.compression, metadata: metadata, to: output)
        default:
            preconditionFailure("\(format) is not written from rows")
        }
    }
}
