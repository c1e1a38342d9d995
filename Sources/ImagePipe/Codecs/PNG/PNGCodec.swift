/// PNG and APNG: libspng reads row by row from the file (`PNGDecoder`), ImagePipe walks an
/// APNG's frames (`APNGFrameDecoder`) and writes PNG on libdeflate, rows as they come unless a
/// palette is chosen from the whole picture (`PaletteQuantizer`).
struct PNGCodec: Codec {
    var format: ImageFormat { .png }
    var capabilities: CodecCapabilities {
        CodecCapabilities(reader: "libspng", writer: "libdeflate and zlib", fileExtensions: ["png"], mediaType: "image/png", rowsInOrder: true,
                          writesRows: true, frames: true, metadata: ["exif", "icc", "xmp"], writtenMetadata: ["exif", "icc", "xmp"])
    }

    func header(of bytes: [UInt8], options: LoadOptions, path: String?) throws -> ImageHeader {
        try PNGHeader.complete(bytes, path: path).imageHeader(prefix: bytes)
    }

    /// The chunks before the image data, for an eXIf orientation: within the first MiB.
    func headerReader(file: OpenedFile?, options: LoadOptions, path: String) throws -> any HeaderReader {
        PrefixHeaderReader(limit: PNGHeader.prefixLimit, wantsMore: { try PNGHeader.read($0, path: path) == nil || !PNGHeader.prefixEnds($0) },
                           header: { try (PNGHeader.read($0, path: path) ?? PNGHeader.complete($0, path: path)).imageHeader(prefix: $0) })
    }

    func decode(_ bytes: [UInt8], options: LoadOptions, path: String?) throws -> Image {
        try PNGDecoder.decode(.bytes(bytes), orientation: ExifOrientation.parse(png: bytes), options: options, path: path)
    }

    func decode(file: OpenedFile, header: ImageHeader, options: LoadOptions, path: String) throws -> Image {
        try PNGDecoder.decode(.file(file), orientation: header.orientation, options: options, path: path)
    }

    func metadata(of bytes: [UInt8], path: String?) throws -> ImageMetadata { MetadataScanner.metadata(of: bytes, format: format) }

    func codingFacts(of bytes: [UInt8]) -> CodingFacts { .png(bytes) }

    func frameDecoder(for bytes: [UInt8], canvas: Size?, options: LoadOptions, failOnDamage: Bool, path: String?) throws -> (any AnimationDecoder)? {
        try APNGFrameDecoder(bytes: bytes, options: options, failOnDamage: failOnDamage, path: path)
    }

    func rowSource(path: String, header: ImageHeader, options: LoadOptions) throws -> RowSource? {
        guard let file = try header.source ?? OpenedFile.open(path: path, limit: options.maxInputBytes) else { return nil }
        return RowSource { handoff in
            try PNGDecoder.decode(.file(file), orientation: header.orientation, options: options, path: path, handoff: handoff)
        }
    }

    /// A palette is chosen from the whole picture.
    func takesRows(options: SaveOptions) -> Bool { !options.writesPalette }

    func encode(rows: RowFeed, options: SaveOptions, gray: Bool, metadata: OutputMetadata, to output: EncoderOutput) throws {
        try PNGEncoder.encode(rows, compression: options.compression, metadata: metadata, to: output)
    }

    /// With a palette: PNG without one is written from rows.
    func encode(_ image: Image, options: SaveOptions, metadata: OutputMetadata, cancellation: Cancellation?) throws -> [UInt8] {
        let palette = try PaletteQuantizer(image, colors: options.paletteColors, dither: options.dither)
        return try PNGEncoder.encode(image, compression: options.compression, metadata: metadata, palette: palette)
    }

    func animationEncoder(options: SaveOptions, plays: Int?) -> (any AnimationEncoder)? { APNGEncoder(options: options, plays: plays) }

    /// At compression 9 1.1.
    func encoderSeconds(options: SaveOptions) -> Double { options.compression >= 7 ? 1.5 : 0.4 }
}
