/// `save [path] [format=auto] [quality=auto] …`: encodes the picture and writes it atomically;
/// the last stage of a pipeline. docs/formats.md has every format, its library and its options.
public struct Save: Sink, DeclaredStage {
    public static let declaration = StageDeclaration(
        "save", summary: "Write the picture to a file (png, jpeg, webp, avif, jxl, gif, tiff, bmp, ico)", example: "save avatar.jpg quality=85",
        start: Save(), [
            Param(\.path, "path", .path, positional: true,
                  help: "The file to write; without it, the output given with -o. `-` writes to standard output."),
            // `auto` is one of the choices (not a missing value): the schema has always shown it so.
            Param(\.format, "format", .choice([("auto", nil)] + ImageFormat.encodable.map { ($0.rawValue, $0) }), default: nil,
                  help: "The file format; auto takes it from --format, else from the file's extension. For a tile pyramid, the tiles' format: jpeg (auto), png, webp or avif."),
            Param(\.options.quality, "quality", .integer(1...100), auto: true,
                  help: "JPEG, WebP, AVIF and JPEG XL quality (and TIFF's with tiff-compression=jpeg); auto is 80 for JPEG and TIFF (as sharp; at 4:2:0 with optimized tables, files smaller than libvips' and sharp's defaults make, at a higher SSIM), 80 for WebP (as sharp and Pillow), 50 for AVIF (as sharp and libvips), 90 for JPEG XL (distance 1.0, cjxl's default; quality becomes a distance as cjxl and libvips map it)."),
            Param(\.options.compression, "compression", .integer(0...9), default: SaveOptions().compression,
                  help: "PNG zlib compression level: 0 none, 9 smallest."),
            Param(\.options.background, "background", .color, default: SaveOptions().background,
                  help: "The color a picture with alpha is flattened onto for JPEG, which has no alpha."),
            Param(\.options.chroma, "chroma", .choice(ChromaSubsampling.self), default: SaveOptions().chroma,
                  help: "JPEG and AVIF chroma subsampling: auto is 444 at quality 90 and above, else 420, as libvips (sharp always takes 420)."),
            Param(\.options.progressive, "progressive", .boolean, default: SaveOptions().progressive,
                  help: "Progressive JPEG: a coarse picture first, refined by later scans."),
            Param(\.options.optimizeCoding, "optimize-coding", .boolean, auto: true,
                  help: "JPEG Huffman tables made for the picture: a few percent smaller, the same pixels, but libjpeg keeps the whole picture's DCT coefficients to make them. auto: while those take at most 256 MiB (44 megapixels at 4:4:4, 89 at 4:2:0, 134 gray), so memory does not grow with larger pictures."),
            Param(\.options.losslessMode, "lossless", .choice(LosslessMode.self), default: SaveOptions().losslessMode,
                  help: "WebP, AVIF and JPEG XL: true codes the pixels losslessly (auto is false); JPEG XL from a JPEG through no stage recompresses the JPEG itself, as cjxl does (djxl gives the JPEG back bit for bit). JPEG from a JPEG through nothing but metadata changes, rotate 90/180/270, flip, flop and crop: auto writes the file's own DCT coefficients, moved but not decoded, as jpegtran does, when that is exact (the sides a turn mirrors, and a crop's corner, on whole blocks of 8 or 16 pixels); else it encodes anew at the input's quality and chroma subsampling (unless quality= or chroma= is given) and warns why; true requires the exact move (an error otherwise); trim, as jpegtran -trim, always moves the coefficients, dropping the partial blocks a turn would bring to the left or top and moving a crop's corner in to the next block (a few pixels fewer; the run's notes say how many); false always encodes anew."),
            Param(\.options.nearLossless, "near-lossless", .boolean, default: SaveOptions().nearLossless,
                  help: "WebP near-lossless: lossless coding of pixels adjusted within the quality."),
            Param(\.options.effort, "effort", .integer(0...9), auto: true,
                  help: "Encoder effort, fastest to smallest: WebP 0–6 (auto 4, as sharp and libvips), JPEG XL 1–9 (auto 7, as cjxl and libvips)."),
            Param(\.options.alphaQuality, "alpha-quality", .integer(0...100), default: SaveOptions().alphaQuality,
                  help: "WebP quality of the alpha channel."),
            Param(\.options.speed, "speed", .integer(0...10), default: SaveOptions().speed,
                  help: "AVIF encoder speed: 0 slowest and smallest, 10 fastest (5: sharp's and libvips' effort 4)."),
            Param(\.options.palette, "palette", .boolean, auto: true,
                  help: "PNG as a palette of at most `colors` colors, by libimagequant (sharp's palette); auto is true when colors= is given (as sharp's palette size does), else false."),
            Param(\.options.colors, "colors", .integer(2...256), auto: true,
                  help: "Palette size of palette PNG and GIF (auto: 256); given for a PNG, it turns palette on unless palette=false."),
            Param(\.options.dither, "dither", .number(0...1), default: SaveOptions().dither,
                  help: "Floyd–Steinberg dithering of palette PNG and GIF: 0 none, 1 full."),
            Param(\.options.keep, "keep", .choice(MetadataKeep.self), default: SaveOptions().keep,
                  help: "The input's metadata to write (JPEG, PNG, WebP, AVIF; TIFF keeps icc and xmp): none strips everything but what the colors need (a profile only when the pixels are not sRGB), as sharp; exif (its orientation set to 1 when the pixels were turned), icc (as profile=keep), xmp, a comma list of them in any order (exif,icc), or all; a kept EXIF says the written size and loses its thumbnail, as libvips writes it; -gps in a list (all,-gps, exif,-gps, xmp,-gps) leaves the GPS position out and keeps the rest, as exiftool's -gps:all=."),
            Param(\.options.profile, "profile", Save.profileKind, default: SaveOptions().profile,
                  help: "The color profile written: auto (what the colors need), srgb (sRGB pixels, profile embedded), keep (the input's own profile, converting back to it), none (sRGB pixels, no profile), or the path of an RGB ICC file to convert to and embed."),
            Param(\.options.tiffCompression, "tiff-compression", .choice(TIFFCompression.self), default: SaveOptions().tiffCompression,
                  help: "TIFF compression: deflate (at `compression`'s level, with the horizontal predictor) is lossless and compact; lzw is lossless, for older readers; jpeg is lossy, at `quality` (auto 80); none writes the samples as they are (libvips' default is none, sharp's jpeg)."),
            Param(\.options.tile, "tile", .integer(16...4096), auto: true,
                  help: "TIFF in square tiles of this side in pixels, a multiple of 16 (256 is usual); auto writes strips of about 64 KiB."),
            Param(\.options.loop, "loop", .integer(0...65535), auto: true,
                  help: "Animations: how many times the animation plays, 0 forever (sharp's loop, ImageMagick's -loop); auto plays it as the input did. An AVIF sequence holds no loop count (libavif 0.11 writes none; browsers play it forever): only 0 and auto are taken for AVIF."),
            Param(\.options.delay, "delay", .integer(0...655_350), auto: true,
                  help: "Animations: the milliseconds every frame shows (sharp's delay; ImageMagick's -delay counts hundredths of a second); auto keeps each frame's own. GIF stores hundredths: 65 is written as 70, and 1 to 19 as 20, the shortest delay browsers show as written (they show 0 and 10 ms as 100 ms)."),
            Param(\.pyramid.layout, "layout", .choice(PyramidLayout.self), auto: true,
                  help: "Write a tile pyramid for deep-zoom viewers, as libvips' dzsave (docs/pyramids.md): deepzoom (NAME.dzi and NAME_files/), iiif or iiif3 (IIIF level-0 static tiles and info.json in the folder NAME/), zoomify (ImageProperties.xml and TileGroupN/), google (z/y/x tiles); auto writes Deep Zoom for a path ending in .dzi, one picture otherwise. format= is then the tiles' format."),
            Param(\.pyramid.tileSize, "tile-size", .integer(PyramidOptions.tileSizes), auto: true,
                  help: "Pyramids: a tile's side in pixels; auto is 254 for Deep Zoom (256 with the overlap), 512 for IIIF, 256 for Zoomify and Google, as libvips."),
            Param(\.pyramid.overlap, "overlap", .integer(0...8192), auto: true,
                  help: "Deep Zoom: the pixels a tile shares with each neighbour; auto is 1. The other layouts' tiles meet edge to edge."),
            Param(\.pyramid.shrink, "region-shrink", .choice(PyramidShrink.self), default: .mean,
                  help: "Pyramids: how each 2×2 box of a level becomes a pixel of the next: mean (libvips' default), nearest (the top-left pixel: no new colors), min or max."),
            Param(\.pyramid.skipBlanks, "skip-blanks", .integer(-1...255), auto: true,
                  help: "Pyramids: tiles whose every value is within this of background= are not written; -1 writes every tile. auto is 5 for Google (its viewers show blank.png there), -1 otherwise."),
            Param(\.pyramid.container, "container", .choice(PyramidContainer.self), auto: true,
                  help: "Pyramids: folder, or zip (one ZIP file holding NAME/…, its entries stored); auto is zip for a path ending in .zip."),
            Param(\.pyramid.iiifBase, "iiif-id", .string, auto: true,
                  help: "IIIF pyramids: the address they will be served from, without the pyramid's name, for info.json's id (auto: https://example.com/iiif)."),
        ])

    /// `profile`'s values: a word, or else a path.
    static let profileKind = ParameterKind<OutputProfile>(.string, value: { .string($0.text) }) { value in
        if case let .string(text) = value { OutputProfile(text: text) } else { nil }
    }

    public func check() throws(ArgumentError) {
        if let tile = options.tile, tile % 16 != 0 {
            throw ArgumentError.parameter("tile", "tile: TIFF tiles are a multiple of 16 pixels on a side; \(tile) is not (try \(max(16, tile / 16 * 16)))")
        }
        if let loop = options.loop, let refusal = format.flatMap({ Codecs.of($0).loopRefusal(loop) }) { throw ArgumentError.parameter("loop", refusal) }
        if let effort = options.effort, let range = format.flatMap({ Codecs.of($0).effortRange }), !range.contains(effort) {
            throw ArgumentError.parameter("effort", "effort=\(effort): WebP's effort is 0–6, JPEG XL's 1–9")
        }
        if let layout = pyramid.layout, layout != .deepzoom, let overlap = pyramid.overlap, overlap != 0 {
            throw ArgumentError.parameter("overlap", "overlap=\(overlap): only Deep Zoom's tiles overlap; \(layout.rawValue)'s meet edge to edge")
        }
        if case let .file(path) = options.profile, path.isEmpty {
            throw ArgumentError.parameter("profile", "profile: give srgb, keep, none, auto or the path of an ICC file")
        }
    }

    public var path: String?
    public var format: ImageFormat?
    public var options: SaveOptions
    /// How a tile pyramid is written (`Save+Pyramid`): read only when one is.
    public var pyramid: PyramidOptions

    public init(path: String? = nil, format: ImageFormat? = nil, options: SaveOptions = SaveOptions(), pyramid: PyramidOptions = PyramidOptions()) {
        self.path = path
        self.format = format
        self.options = options
        self.pyramid = pyramid
    }

    public func destination(in context: RunContext) throws -> String {
        // Standard output in the input's format: settled once the input is read.
        if (path ?? context.output) == "-", (format ?? context.outputFormat) == nil { return "-" }
        return try target(in: context).path
    }

    public var filesRead: [String] {
        if case let .file(profile) = options.profile { return [profile] }
        return []
    }

    /// Where the picture goes and in which format, before anything is encoded.
    public func target(in context: RunContext) throws -> (path: String, format: ImageFormat) {
        guard let written = path ?? context.output else {
            throw StageError("no output: give the run an output, or give \(Self.schema.name) a path", remedy: .nameOutput)
        }
        let path = try context.resolveOutput(written)
        if path == "-", pyramid.layout != nil {
            throw StageError("a tile pyramid is many files and cannot go to standard output; give it a path (NAME.dzi, NAME.zip, or a folder NAME)")
        }
        if path != "-", pyramidLayout(path: path) != nil {
            let format = format ?? context.outputFormat ?? .jpeg
            try checkPyramid(path: path, format: format)
            return (path, format)
        }
        try checkPyramid(path: path, format: .jpeg)
        let named = path == "-" ? nil : ImageFormat(fileName: path)
        if let asked = format ?? context.outputFormat, let named, asked != named {
            // A .png file holding JPEG bytes fools every program that trusts the name.
            let by = format != nil ? "\(Self.schema.name)'s format=" : "the run's output format"
            throw StageError("'\(path)' is named as \(named.rawValue), but \(by) says \(asked.rawValue); make the extension and the format agree, or give only one",
                             remedy: format != nil ? nil : .nameOutputFormat)
        }
        guard let format = try format ?? context.outputFormat ?? named ?? (path == "-" ? Self.inputFormat(in: context) : nil) else {
            throw StageError(Self.unknownExtension(path))
        }
        guard format.hasEncoder else { throw StageError(Self.notWritten(format, path: path)) }
        guard format.isWritable else {
            throw StageError("this system has no \(format.rawValue) saver (gdk-pixbuf's is not installed); it can write \(ImageFormat.writableList)")
        }
        if options.losslessMode == .trim, !format.capabilities.movesLosslessly {
            // Trimming is of a JPEG's partial blocks; for another format it would mean nothing.
            throw StageError("lossless=trim is for a JPEG turned or cropped from a JPEG (jpegtran -trim); for lossless \(format.rawValue), say lossless=true")
        }
        return (path, format)
    }

    /// The format standard output is written in when none is named: the input's own, told from
    /// the bytes read from standard input, else from the file's first bytes, else from its name.
    /// Refused, saying why, when it cannot be told or cannot be written.
    static func inputFormat(in context: RunContext) throws(StageError) -> ImageFormat {
        let remedy = "name one: save format=… or the run's output format"
        var start = context.inputBytes.map { Array($0.prefix(ImageFormat.sniffLength)) }
        if start == nil, let input = context.input, input != "-", ImageFile.isRegularFile(input) {
            start = ImageFile.leadingBytes(path: input)
        }
        let source = start.flatMap { ImageFormat.sniff($0) } ?? context.input.flatMap { PathBytes.splitExtension(PathBytes.lastComponent($0)).ext }.flatMap { ImageFormat(name: $0) }
        guard let format = source else {
            throw StageError("writing to standard output needs a format, and the input's cannot be told; \(remedy)", remedy: .nameOutputFormat)
        }
        guard format.isWritable else {
            throw StageError("writing to standard output in the input's format, \(format.displayName), which cannot be written here; \(remedy) (\(ImageFormat.writableList))",
                             remedy: .nameOutputFormat)
        }
        return format
    }

    /// What can be written, for the messages that refuse an output's format.
    static var writableHint: String { "it can write \(ImageFormat.writableList) (by extension, or save format=…)" }

    /// Why `format`, which ImagePipe reads but has no encoder for, is not written at `path`.
    static func notWritten(_ format: ImageFormat, path: String) -> String {
        "'\(path)': \(Codecs.of(format).whyNotWritten ?? "\(format.displayName) is read but not written"); \(writableHint)"
    }

    /// Why `path`'s extension names no writable format, and what can be written.
    static func unknownExtension(_ path: String) -> String {
        let name = Array(PathBytes.lastComponent(path).utf8)
        let ext = name.lastIndex(of: UInt8(ascii: ".")).map { String(decoding: name[($0 + 1)...], as: UTF8.self).lowercased() }
        let writable = writableHint
        if let ext, let format = ImageFormat(name: ext), Codecs.of(format).whyNotWritten != nil { return notWritten(format, path: path) }
        switch ext {
        case "zip":
            return "'\(path)': a ZIP is written for a tile pyramid only: give layout=deepzoom (or iiif, iiif3, zoomify, google); \(writable)"
        case let ext?:
            return "cannot tell the format of '\(path)' from its extension (no writable format is .\(ext)); \(writable)"
        case nil:
            return "cannot tell the format of '\(path)' without an extension (for a folder, write '\(path)/'); \(writable)"
        }
    }

    public func write(_ image: Image, in context: RunContext) throws -> String {
        let (path, format) = try target(in: context)
        if !format.supportsAlpha, image.hasAlpha {
            context.warn("\(path): \(format.displayName) has no alpha; flattened onto \(options.background)")
        }
        do {
            try context.cancellation?.check(path: path)
            if let layout = pyramidLayout(path: path) {
                let (prepared, _) = try image.preparedForSaving(as: format, options: encoderOptions(writing: path), warn: { context.warn("\(path): \($0)") })
                let flat = !format.supportsAlpha && prepared.hasAlpha ? try prepared.flattened(onto: options.background) : prepared
                try writePyramid(at: path, layout: layout, format: format, in: context) { build in
                    try build(RowFeed(flat, cancellation: context.cancellation))
                }
                return path
            }
            return try store(at: path, in: context) { output in
                try image.encode(as: format, options: options, cancellation: context.cancellation, warn: { context.warn("\(path): \($0)") },
                                 to: output)
                // A run stopped meanwhile writes nothing.
                try context.cancellation?.check(path: path)
            }
        } catch var error as ImageError {
            error.path = path
            throw error
        }
    }

    /// Writes the file `write` makes, into the output it is given, at `path` (from `target`):
    /// atomically, the encoder writing the temporary file as it goes; or to standard output.
    func store(at path: String, in context: RunContext, writing write: (EncoderOutput) throws -> Void) throws -> String {
        guard path != "-" else {
            let output = EncoderOutput()
            try write(output)
            return try store(output.bytes, at: path, in: context)
        }
        if let root = context.outputDirectory { try ImageFile.createParentDirectories(of: path, within: root) }
        try ImageFile.writeAtomically(to: path, gate: context.outputGate) { descriptor in try write(EncoderOutput(descriptor: descriptor)) }
        return path
    }

    /// Writes what `write` makes from rows at `path` in `format` (from `target`): it is given the
    /// function that takes the rows (with what the picture is, and the metadata to embed) and
    /// encodes them into one file, or into the tiles of a pyramid. An encoder that takes only a
    /// whole picture (`RowEncoding.takesRows`) is given the rows gathered into one, a cache before
    /// the sink, and encodes it as `write(_:in:)` does.
    /// Whether writing `format` at `path` takes the whole picture (`storeRows` gathers the rows
    /// for it): not a pyramid, and an encoder that does not take rows.
    func gathersRows(format: ImageFormat, path: String) -> Bool {
        pyramidLayout(path: path) == nil && !RowEncoding.takesRows(format, options: options)
    }

    func storeRows(at path: String, format: ImageFormat, in context: RunContext,
                   writing write: ((_ rows: RowFeed, _ picture: ImageMetadata, _ metadata: OutputMetadata) throws -> Void) throws -> Void) throws -> String {
        if path != "-", let layout = pyramidLayout(path: path) {
            try writePyramid(at: path, layout: layout, format: format, in: context) { build in
                // (`write` calls it before it returns; the builder keeps nothing of it.)
                try withoutActuallyEscaping(build) { build in try write { rows, _, _ in try build(rows) } }
            }
            return path
        }
        return try store(at: path, in: context) { file in
            try write { rows, picture, metadata in
                guard !gathersRows(format: format, path: path) else {
                    // The saving plan's warnings were told by the streamed run.
                    return try rows.gathered().withMetadata(picture).encode(as: format, options: options, cancellation: context.cancellation,
                                                                             warn: { _ in }, to: file)
                }
                try RowEncoding.encode(rows, as: format, options: options, gray: picture.grayOnly, metadata: metadata, to: file)
            }
        }
    }

    /// `store` of a file held in chunks (an animation's).
    func store(_ chunks: ByteChunks, at path: String, in context: RunContext) throws -> String {
        guard path != "-" else { return try store(chunks.joined, at: path, in: context) }
        if let root = context.outputDirectory { try ImageFile.createParentDirectories(of: path, within: root) }
        try ImageFile.writeAtomically(chunks, to: path, gate: context.outputGate)
        return path
    }

    /// Writes an encoded picture to `path` (from `target`) atomically, or to standard output.
    func store(_ bytes: [UInt8], at path: String, in context: RunContext) throws -> String {
        if let root = context.outputDirectory, path != "-" { try ImageFile.createParentDirectories(of: path, within: root) }
        try bytes.withUnsafeBytes { buffer in
            if path == "-" {
                try StandardStreams.writeToStandardOutput(buffer)
            } else {
                try ImageFile.writeAtomically(buffer, to: path, gate: context.outputGate)
            }
        }
        return path
    }
}
