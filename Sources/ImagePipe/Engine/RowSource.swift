/// A decoder that hands a streamed run its rows as it makes them (`RowHandoff`): libjpeg's,
/// libspng's row by row, libtiff's strip by strip, and
/// libwebp's as its incremental decoder finishes them. `CodecCapabilities.rowsInOrder` says which formats have one.
struct RowSource: Sendable {
    /// Runs on the decoder's thread, telling `handoff` of the picture and its rows. Returns what
    /// held the rows, or, when the reader declined them (or the file turned out not to stream:
    /// the decoder then never says it started), the picture as the ordinary run decodes it.
    let decode: @Sendable (RowHandoff) throws -> Image

    /// A source that decodes the picture whole (`decode`), then hands its rows on through the
    /// ring the reader asks for, as a decoder that makes rows does: the streamed run's source
    /// for a decoder that gives only whole pictures. The picture is a cache in front of the
    /// stages, read, never written (an `Image` is not written once made).
    static func decodedWhole(_ decode: @escaping @Sendable () throws -> Image) -> RowSource {
        RowSource { handoff in
            let picture = try decode()
            let (size, channels) = (picture.size, picture.channelCount)
            let rowStride = RowHandoff.Start.rowStride(width: size.width, channels: channels)
            let ring = handoff.started(RowHandoff.Start(size: size, rowStride: rowStride, channels: channels, metadata: picture.metadata))
            guard !handoff.declined else { return picture }
            // The ring carries the decode's warnings, for the run to tell once the rows are read.
            var warnings = ImageMetadata()
            warnings.decodeWarnings = picture.metadata.decodeWarnings
            return try Image.make(size: Size(size.width, ring > 0 ? ring : size.height), hasAlpha: picture.hasAlpha) { writer in
                do {
                    guard writer.rowStride == rowStride else { throw ImageError(.tooLarge, reason: "the ring's rows are not laid out as said") }
                    handoff.ready(writer.base)
                    for y in 0..<size.height {
                        guard handoff.room(for: y) else { throw ImageError(.interrupted, reason: RowHandoff.readerStopped) }
                        (writer.base + (ring > 0 ? y % ring : y) * rowStride).update(from: picture.rowStart(y), count: size.width * channels)
                        if (y + 1) % 16 == 0 || y + 1 == size.height { handoff.made(y + 1) }
                    }
                } catch {
                    handoff.failing() // the reader lets go of the ring before it is freed
                    throw error
                }
            }.withMetadata(warnings)
        }
    }

    /// The decoder of the file at `path` (whose header was read) in `format`, by its codec; nil
    /// for a format that does not hand out rows in order.
    static func of(_ format: ImageFormat, path: String, header: ImageHeader, options: LoadOptions) throws -> RowSource? {
        try Codecs.of(format).rowSource(path: path, header: header, options: options)
    }
}
