/// TIFF through libtiff, both ways: the first page, strip by strip (`TIFFDecoder`), or one of
/// the smaller copies a pyramid stores after it, written from rows in strips or tiles
/// (`TIFFEncoder`).
struct TIFFCodec: Codec {
    var format: ImageFormat { .tiff }
    var capabilities: CodecCapabilities {
        // The XMP packet has its tag; the EXIF directory is not written.
        CodecCapabilities(reader: "libtiff", writer: "libtiff", fileExtensions: ["tif", "tiff"], mediaType: "image/tiff", reducedDecode: true,
                          rowsInOrder: true, writesRows: true, regions: true, metadata: ["icc", "xmp"], writtenMetadata: ["icc", "xmp"])
    }

    /// A pyramid's smallest level that is still large enough; the full size for a file without one.
    func reducedSize(of header: ImageHeader, atLeast target: Size) -> Size {
        TIFFDecoder.level(of: header.reducedLevels, atLeast: target).map { header.reducedLevels[$0] } ?? header.storedSize
    }

    func reducedSizes(of header: ImageHeader) -> [Size] { header.reducedLevels }

    func header(of bytes: [UInt8], options: LoadOptions, path: String?) throws -> ImageHeader {
        try TIFFDecoder.header(of: bytes, path: path)
    }

    /// libtiff reads the directory where it lies (libtiff writes it after the pixels).
    func headerReader(file: OpenedFile?, options: LoadOptions, path: String) throws -> any HeaderReader {
        guard let file else { return PrefixHeaderReader.wholeFile(options: options, path: path) }
        return PrefixHeaderReader.fromFile { try TIFFDecoder.header(of: .file(file), path: path) }
    }

    func decode(_ bytes: [UInt8], options: LoadOptions, path: String?) throws -> Image {
        try TIFFDecoder.decode(.bytes(bytes), options: options, path: path)
    }

    func decode(file: OpenedFile, header: ImageHeader, options: LoadOptions, path: String) throws -> Image {
        try TIFFDecoder.decode(.file(file), options: options, path: path)
    }

    func metadata(of bytes: [UInt8], path: String?) throws -> ImageMetadata { try TIFFDecoder.metadata(of: .bytes(bytes), path: path) }

    func codingFacts(of bytes: [UInt8]) -> CodingFacts { .tiff(.bytes(bytes)) }

    /// libtiff and the tag walk read the first directory where it lies.
    func metadataAndCoding(of file: OpenedFile, options: LoadOptions, path: String) throws -> (metadata: ImageMetadata, coding: CodingFacts) {
        (try TIFFDecoder.metadata(of: .file(file), path: path), .tiff(.file(file)))
    }

    func rowSource(path: String, header: ImageHeader, options: LoadOptions) throws -> RowSource? {
        guard let file = try header.source ?? OpenedFile.open(path: path, limit: options.maxInputBytes) else { return nil }
        return RowSource { handoff in try TIFFDecoder.decodeRows(.file(file), options: options, path: path, handoff: handoff) }
    }

    /// A strip or a row of tiles, as the first directory has them (a pyramid's levels are
    /// written alike).
    func bandRows(of header: ImageHeader, height: Int) -> Int? { header.bandRows.map { min($0, height) } }

    func encode(rows: RowFeed, options: SaveOptions, gray: Bool, metadata: OutputMetadata, to output: EncoderOutput) throws {
        try TIFFEncoder.encode(rows, gray: gray && rows.channels == 3 && metadata.icc == nil, compression: options.tiffCompression,
                               level: options.compression, quality: options.quality ?? SaveOptions.defaultQuality(.jpeg),
                               tile: options.tile, metadata: metadata, to: output)
    }
}
