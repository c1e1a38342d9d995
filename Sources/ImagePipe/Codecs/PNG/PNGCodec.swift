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

    func heldEncoderBytes(size: Size, channels: Int, gray: Bool, options: SaveOptions) -> Int {
        PNGEncoder.streamedHeldBytes(rowLength: size.width * channels, height: size.height)
    }

    /// The chunks read where they lie, without the compressed pixels.
    func metadataAndCoding(of file: OpenedFile, options: LoadOptions, path: String) throws -> (metadata: ImageMetadata, coding: CodingFacts) {
        let chunks = try Self.chunksWithoutPixels(of: file)
        return (try metadata(of: chunks, path: path), codingFacts(of: chunks))
    }

    /// The file's signature and chunks up to IEND, read a chunk header at a time, with the data
    /// of the pixel chunks (IDAT, fdAT) and of any chunk past `MetadataScanner.keptChunkLimit`
    /// left out (their lengths written 0): what the metadata scan and the coding facts read of a
    /// PNG, in a few pages however large the picture, read a window at a time where the chunks
    /// lie (`EncodedInputWindow`).
    static func chunksWithoutPixels(of file: OpenedFile) throws -> [UInt8] {
        var reader = EncodedInputWindow(.file(file))
        var chunks = Array(try reader.bytes(count: 8, at: 0)), offset = 8
        while true {
            let header = try reader.bytes(count: 8, at: offset)
            guard header.count == 8 else { break }
            let at = header.startIndex
            let length = Int(header[at]) << 24 | Int(header[at + 1]) << 16 | Int(header[at + 2]) << 8 | Int(header[at + 3])
            let tag = header[(at + 4)...]
            let type = String(decoding: tag, as: UTF8.self)
            if type == "IDAT" || type == "fdAT" || length > MetadataScanner.keptChunkLimit {
                chunks += [0, 0, 0, 0] + tag + [0, 0, 0, 0]
            } else {
                chunks += try reader.bytes(count: 12 + length, at: offset)
            }
            offset += 12 + length
            if type == "IEND" { break }
        }
        return chunks
    }

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
