/// One picture format's codec, in the spirit of libvips' `VipsForeignLoad` and `VipsForeignSave`
/// classes: everything ImagePipe knows of the format lives in its folder under `Codecs/`, and a
/// conformance there (`<Format>Codec`) is what the rest of the library asks, through the
/// registry (`Codecs`). A format lacking a piece (frames, rows in order, an encoder) leaves it to
/// the defaults below, which say it has none; `capabilities` declares the same, and
/// `CodecRegistryTests` holds the two together.
protocol Codec: Sendable {
    /// The format's identity.
    var format: ImageFormat { get }
    /// What the codec can do: its libraries, and which of the pieces below it gives.
    var capabilities: CodecCapabilities { get }

    /// The header of the file held whole in `bytes`, before any pixel: the stored size, the
    /// orientation and the frame count.
    func header(of bytes: [UInt8], options: LoadOptions, path: String?) throws -> ImageHeader

    /// A reader of the header from the file's first chunks as they are read (`ImageHeader.read`);
    /// `file` is the open file, nil for a stream read once. By default the whole file is kept
    /// and its header read from memory.
    func headerReader(file: OpenedFile?, options: LoadOptions, path: String) throws -> any HeaderReader

    /// The size its decoder gives a picture with `header` when asked for one at least `target`
    /// (`LoadOptions.atLeast`), both as stored: the full size unless `capabilities.reducedDecode`.
    func reducedSize(of header: ImageHeader, atLeast target: Size) -> Size

    /// Every size its decoder gives directly below the full one, as stored, largest first (a
    /// JPEG's DCT scalings, a pyramid's levels): what a service offers as fast sizes.
    func reducedSizes(of header: ImageHeader) -> [Size]

    /// Decodes the file held whole in `bytes` (a still picture: an animation's first frame).
    func decode(_ bytes: [UInt8], options: LoadOptions, path: String?) throws -> Image

    /// Decodes the file `header` was read from, going on from the file the header read opened.
    /// By default the file is read whole and decoded from memory (`capabilities.wholeFile`).
    func decode(file: OpenedFile, header: ImageHeader, options: LoadOptions, path: String) throws -> Image

    /// The profile, EXIF and XMP, without decoding, for `imagepipe info`.
    func metadata(of bytes: [UInt8], path: String?) throws -> ImageMetadata

    /// How the file is coded (channels, depth, color space, frames' delays), from its headers.
    func codingFacts(of bytes: [UInt8]) -> CodingFacts

    /// `metadata(of:path:)` and `codingFacts(of:)` of the open `file`, for `imagepipe info`. By
    /// default the file is read whole; a format whose facts lie in a known part of the file
    /// reads that part alone, so a gigapixel file is described in a few pages of memory.
    func metadataAndCoding(of file: OpenedFile, options: LoadOptions, path: String) throws -> (metadata: ImageMetadata, coding: CodingFacts)

    /// A decoder over the frames of the animation held in `bytes`; nil for a format without frames.
    func frameDecoder(for bytes: [UInt8], canvas: Size?, options: LoadOptions, failOnDamage: Bool, path: String?) throws -> (any AnimationDecoder)?

    /// A decoder over the frames of the file at `path`; by default the file is read whole.
    func frameDecoder(path: String, canvas: Size?, options: LoadOptions, failOnDamage: Bool) throws -> (any AnimationDecoder)?

    /// The decoder that hands a streamed run the rows of the file at `path` (whose header was
    /// read) as it makes them; nil for a format that decodes only whole pictures.
    func rowSource(path: String, header: ImageHeader, options: LoadOptions) throws -> RowSource?

    /// Rows the row source writes before it tells of them (`RowHandoff.Start.bandRows`) for a
    /// decode `height` rows tall, as known from `header`, for the streamed run's memory
    /// estimate; nil when only the decode knows.
    func bandRows(of header: ImageHeader, height: Int) -> Int?

    /// Whether a save with `options` is written from rows in order (`encode(rows:…)`).
    func takesRows(options: SaveOptions) -> Bool

    /// `rows` (RGB, or RGBA where the format holds alpha) encoded into `output`, embedding
    /// `metadata`; `gray`: the rows are gray (R = G = B). Only when `takesRows(options:)`.
    func encode(rows: RowFeed, options: SaveOptions, gray: Bool, metadata: OutputMetadata, to output: EncoderOutput) throws

    /// Bytes the row encoder holds while it writes a `size` picture of `channels` (3 or 4;
    /// `gray`: the rows are gray) with `options`, beyond the rows it is handed: for the
    /// streamed run's memory estimate.
    func heldEncoderBytes(size: Size, channels: Int, gray: Bool, options: SaveOptions) -> Int

    /// The whole picture encoded, embedding `metadata`; a `cancellation` stops the encoders that
    /// can be stopped. Only when the codec has a writer and does not take rows.
    func encode(_ image: Image, options: SaveOptions, metadata: OutputMetadata, cancellation: Cancellation?) throws -> [UInt8]

    /// An encoder that takes an animation frame by frame; nil for a format that holds one picture.
    func animationEncoder(options: SaveOptions, plays: Int?) -> (any AnimationEncoder)?

    /// Whether the encoder's library is on this system (`ImageFormat.isWritable`); ImagePipe's
    /// own encoders and the libraries it links always are.
    var writerIsInstalled: Bool { get }

    /// Why ImagePipe does not write the format, and what to write instead, for the message that
    /// refuses an output named so; nil where there is nothing more to say than that it is not
    /// written.
    var whyNotWritten: String? { get }

    /// Refuses a picture of `size` the encoder cannot hold, before it is prepared for saving;
    /// where the encoder tells of it itself, nothing.
    func checkWritable(_ size: Size) throws(ImageError)

    /// Why an animation that plays `loop` times (0: forever) cannot be written in the format; nil
    /// when it can.
    func loopRefusal(_ loop: Int) -> String?

    /// The metadata a save embeds (already checked to parse) as the format holds it, and a
    /// warning for each block left out; refused when a profile the pixels are in cannot be held.
    /// By default every block, as it is.
    func fitted(_ metadata: OutputMetadata) throws -> (metadata: OutputMetadata, warnings: [String])

    /// The longest side the encoder writes, where a picture within the pixel limit can reach it,
    /// and what sets it; nil where the format's bound is past any such picture.
    var longestSide: (pixels: Int, by: String)? { get }

    /// How `info` names interlaced data and its absence.
    var interlacingWords: (yes: String, no: String) { get }

    /// The `quality` a save uses when none is given.
    var defaultQuality: Int { get }

    /// The `effort` a save uses when none is given, on the format's own scale.
    var defaultEffort: Int { get }

    /// The efforts the encoder takes (within the parameter's 0–9); nil where it takes none.
    var effortRange: ClosedRange<Int>? { get }

    /// The encoder's seconds per megapixel with `options`, idle, on two cores: what the default
    /// time limit allows for the save (`TimeLimit`).
    func encoderSeconds(options: SaveOptions) -> Double
}

extension Codec {
    func reducedSize(of header: ImageHeader, atLeast target: Size) -> Size { header.storedSize }

    func reducedSizes(of header: ImageHeader) -> [Size] { [] }

    func headerReader(file: OpenedFile?, options: LoadOptions, path: String) throws -> any HeaderReader {
        PrefixHeaderReader.wholeFile(options: options, path: path)
    }

    func decode(file: OpenedFile, header: ImageHeader, options: LoadOptions, path: String) throws -> Image {
        try Image.decode(file.readAll(), options: options, path: path)
    }

    func metadata(of bytes: [UInt8], path: String?) throws -> ImageMetadata { ImageMetadata() }

    func codingFacts(of bytes: [UInt8]) -> CodingFacts { CodingFacts() }

    func metadataAndCoding(of file: OpenedFile, options: LoadOptions, path: String) throws -> (metadata: ImageMetadata, coding: CodingFacts) {
        let bytes = try file.readAll()
        return (try metadata(of: bytes, path: path), codingFacts(of: bytes))
    }

    func frameDecoder(for bytes: [UInt8], canvas: Size?, options: LoadOptions, failOnDamage: Bool, path: String?) throws -> (any AnimationDecoder)? {
        nil
    }

    func frameDecoder(path: String, canvas: Size?, options: LoadOptions, failOnDamage: Bool) throws -> (any AnimationDecoder)? {
        try frameDecoder(for: ImageFile.readPicture(path: path, options: options), canvas: canvas, options: options, failOnDamage: failOnDamage,
                         path: path)
    }

    func rowSource(path: String, header: ImageHeader, options: LoadOptions) throws -> RowSource? { nil }

    /// libjpeg's and libspng's rows, told 16 at a time.
    func bandRows(of header: ImageHeader, height: Int) -> Int? { 16 }

    func takesRows(options: SaveOptions) -> Bool { capabilities.writesRows }

    func encode(rows: RowFeed, options: SaveOptions, gray: Bool, metadata: OutputMetadata, to output: EncoderOutput) throws {
        preconditionFailure("\(format) is not written from rows")
    }

    func heldEncoderBytes(size: Size, channels: Int, gray: Bool, options: SaveOptions) -> Int { 0 }

    func encode(_ image: Image, options: SaveOptions, metadata: OutputMetadata, cancellation: Cancellation?) throws -> [UInt8] {
        throw ImageError(.unwritable, reason: "ImagePipe does not write \(format.displayName)")
    }

    func animationEncoder(options: SaveOptions, plays: Int?) -> (any AnimationEncoder)? { nil }

    var writerIsInstalled: Bool { true }

    var whyNotWritten: String? { nil }

    func checkWritable(_ size: Size) throws(ImageError) {}

    func loopRefusal(_ loop: Int) -> String? { nil }

    func fitted(_ metadata: OutputMetadata) throws -> (metadata: OutputMetadata, warnings: [String]) { (metadata, []) }

    /// Adam7 in PNG, interlaced GIF.
    var interlacingWords: (yes: String, no: String) { ("interlaced", "not interlaced") }

    /// PNG, TIFF and BMP: 2^31 and more.
    var longestSide: (pixels: Int, by: String)? { nil }

    var defaultQuality: Int { 90 }

    var defaultEffort: Int { 4 }

    var effortRange: ClosedRange<Int>? { nil }

    /// JPEG 0.05, rounded up; BMP and ICO less.
    func encoderSeconds(options: SaveOptions) -> Double { 0.1 }
}
