/// A decoder that hands a streamed run its rows as it makes them (`RowHandoff`): libjpeg's,
/// libspng's row by row, libtiff's strip by strip, and
/// libwebp's as its incremental decoder finishes them. `Codec.rowsInOrder` says which formats have one.
struct RowSource: Sendable {
    /// Runs on the decoder's thread, telling `handoff` of the picture and its rows. Returns what
    /// held the rows, or, when the reader declined them (or the file turned out not to stream:
    /// the decoder then never says it started), the picture as the ordinary run decodes it.
    let decode: @Sendable (RowHandoff) throws -> Image

    /// The decoder of the file at `path` (whose header was read) in `format`; nil for a format
    /// that does not hand out rows in order.
    static func of(_ format: SourceFormat, path: String, header: ImageHeader, options: LoadOptions) throws -> RowSource? {
        switch format {
        case .jpeg:
            return RowSource { handoff in
                let raw = try Image.decodeRawJPEG(path: path, header: header, options: options, watcher: handoff)
                // The rows' ring carries the decode's metadata for its warnings, known only at its end.
                return handoff.declined ? try StrictJPEG.finished(raw, orientation: header.orientation, options: options, path: path)
                    : raw.0.withMetadata(raw.1)
            }
        case .png:
            guard let file = try header.source ?? OpenedFile.open(path: path, limit: options.maxInputBytes) else { return nil }
            return RowSource { handoff in
                try PNGDecoder.decode(.file(file), orientation: header.orientation, options: options, path: path, handoff: handoff)
            }
        case .webp:
            guard let file = try header.source ?? OpenedFile.open(path: path, limit: options.maxInputBytes) else { return nil }
            return RowSource { handoff in try WebPDecoder.decode(.file(file), options: options, path: path, handoff: handoff) }
        case .tiff:
            guard let file = try header.source ?? OpenedFile.open(path: path, limit: options.maxInputBytes) else { return nil }
            return RowSource { handoff in try TIFFDecoder.decodeRows(.file(file), options: options, path: path, handoff: handoff) }
        default:
            return nil
        }
    }
}
