/// JPEG through libjpeg(-turbo), both ways: the header is ImagePipe's own walk of the segments
/// (`JPEGHeader`), the decode strict (`StrictJPEG`), rows handed on as libjpeg makes them, and
/// rows written as they come (`JPEGEncoder`).
struct JPEGCodec: Codec {
    var format: ImageFormat { .jpeg }
    var capabilities: CodecCapabilities {
        CodecCapabilities(reader: "libjpeg-turbo", writer: "libjpeg-turbo", fileExtensions: ["jpg", "jpeg", "jpe", "jfif"], mediaType: "image/jpeg",
                          reducedDecode: true, rowsInOrder: true, writesRows: true, regions: true, metadata: ["exif", "icc", "xmp"],
                          writtenMetadata: ["exif", "icc", "xmp"], writesAlpha: false, movesLosslessly: true)
    }

    func header(of bytes: [UInt8], options: LoadOptions, path: String?) throws -> ImageHeader {
        try JPEGHeader.read(bytes, path: path).imageHeader
    }

    /// libjpeg's DCT scaling: 1/2, 1/4 or 1/8.
    func reducedSize(of header: ImageHeader, atLeast target: Size) -> Size {
        PixbufDecoder.jpegReducedSize(stored: header.storedSize, atLeast: target)
    }

    func reducedSizes(of header: ImageHeader) -> [Size] {
        PixbufDecoder.jpegDenominators.reversed().map { header.storedSize.reduced(by: $0) }
    }

    func headerReader(file: OpenedFile?, options: LoadOptions, path: String) throws -> any HeaderReader { JPEGHeader.Reader(path: path) }

    func decode(_ bytes: [UInt8], options: LoadOptions, path: String?) throws -> Image {
        try StrictJPEG.decode(bytes, options: options, path: path)
    }

    func decode(file: OpenedFile, header: ImageHeader, options: LoadOptions, path: String) throws -> Image {
        try StrictJPEG.finished(StrictJPEG.decodeRaw(file: file, orientation: header.orientation, options: options, watcher: nil),
                                orientation: header.orientation, options: options, path: path)
    }

    func metadata(of bytes: [UInt8], path: String?) throws -> ImageMetadata { MetadataScanner.metadata(of: bytes, format: format) }

    func codingFacts(of bytes: [UInt8]) -> CodingFacts { .jpeg(bytes) }

    /// The coefficients, while libjpeg makes Huffman tables for the picture.
    func heldEncoderBytes(size: Size, channels: Int, gray: Bool, options: SaveOptions) -> Int {
        options.heldCodingBytes(size: size, gray: gray, quality: options.quality(for: format))
    }

    /// Every block `info` reads lies before the first scan.
    func metadataAndCoding(of file: OpenedFile, options: LoadOptions, path: String) throws -> (metadata: ImageMetadata, coding: CodingFacts) {
        let segments = try CodingFacts.segmentsBeforeFirstScan { body in try file.readChunks(deadline: options.deadline, body) }
        return (try metadata(of: segments, path: path), codingFacts(of: segments))
    }

    func rowSource(path: String, header: ImageHeader, options: LoadOptions) throws -> RowSource? {
        RowSource { handoff in
            // libjpeg's decode from the file the header read opened, before the EXIF turn and
            // color management; the handoff hears of the rows as they come.
            guard let file = try header.source ?? OpenedFile.open(path: path, limit: options.maxInputBytes) else {
                throw ImageError(.unreadable, path: path, reason: "not a regular file")
            }
            let raw = try StrictJPEG.decodeRaw(file: file, orientation: header.orientation, options: options, watcher: handoff)
            // The rows' ring carries the decode's metadata for its warnings, known only at its end.
            return handoff.declined ? try StrictJPEG.finished(raw, orientation: header.orientation, options: options, path: path)
                : raw.0.withMetadata(raw.1)
        }
    }

    func encode(rows: RowFeed, options: SaveOptions, gray: Bool, metadata: OutputMetadata, to output: EncoderOutput) throws {
        precondition(rows.channels == 3, "flatten before encoding JPEG")
        let quality = options.quality(for: .jpeg)
        try JPEGEncoder.encode(rows, quality: quality, chroma: options.chroma, gray: gray, progressive: options.progressive,
                               optimizeCoding: options.optimizesCoding(size: rows.size, gray: gray && metadata.icc == nil, quality: quality),
                               metadata: metadata, to: output)
    }

    var interlacingWords: (yes: String, no: String) { ("progressive", "baseline") }

    /// libjpeg's `JPEG_MAX_DIMENSION`.
    var longestSide: (pixels: Int, by: String)? { (65_500, "libjpeg's limit") }

    func fitted(_ metadata: OutputMetadata) throws -> (metadata: OutputMetadata, warnings: [String]) { try JPEGSegmentLimits.fitted(metadata) }

    /// 80, as sharp: measured on 14 photos made into 640-px thumbnails
    /// (Benchmarks/save_defaults.py), 80 with 4:2:0 and optimized tables is 0.79× the bytes of
    /// libvips' default (75, unoptimized) at a higher SSIM against the float reference, and 0.72×
    /// sharp's.
    var defaultQuality: Int { 80 }
}
