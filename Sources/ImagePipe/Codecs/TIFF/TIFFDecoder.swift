import CTiffCodec

/// TIFF reading through libtiff directly. gdk-pixbuf's TIFF loader reads every file through
/// libtiff's RGBA interface, which gave every TIFF an alpha channel, cut 16-bit samples to their
/// high byte, premultiplied alpha and applied half of the orientation tag. Here the common kinds
/// (8 and 16 bits; gray, RGB, CMYK and CIELab; strips or tiles; one plane or one per sample) are read
/// sample by sample, 16 bits rounded to 8; the rest (palette, 1 to 4 bits, YCbCr, LogLuv, …) go
/// through the RGBA interface in storage order. The picture is then turned by its orientation tag
/// and color managed as every decode is. Only the first directory is read, or, for a plan that
/// shrinks, one of the smaller copies a pyramid stores after it (`reducedLevels`), the first
/// directory's orientation, profile and XMP kept.
enum TIFFDecoder {
    /// The header of TIFF data: the first directory's size and orientation.
    static func header(of bytes: [UInt8], path: String?) throws -> ImageHeader {
        try header(of: .bytes(bytes), path: path)
    }

    static func header(of input: EncodedInput, path: String?) throws -> ImageHeader {
        try withReader(input, options: LoadOptions(), path: path) { reader in
            let fields = try readFields(reader, path: path)
            // JPEG-compressed YCbCr is read as RGB (libjpeg converts it), as `decode` asks.
            let jpegRGB = fields.compression == COMPRESSION_JPEG && fields.photometric == PHOTOMETRIC_YCBCR
                && fields.planar_config == PLANARCONFIG_CONTIG
            var header = ImageHeader(storedSize: Size(Int(fields.width), Int(fields.height)), format: .tiff,
                                     orientation: orientation(of: fields), rowsInOrder: TIFFSampleLayout(fields, jpegRGB: jpegRGB)?.streams ?? false)
            header.reducedLevels = levels(reader).map(\.size)
            header.bandRows = Int(fields.tiled != 0 ? fields.tile_length : fields.rows_per_strip)
            return header
        }
    }

    /// The pyramid's levels after the first directory: their directories and sizes, largest first.
    private static func levels(_ reader: OpaquePointer) -> [(directory: UInt16, size: Size)] {
        let capacity = 32
        var directories = [UInt16](repeating: 0, count: capacity), widths = [UInt32](repeating: 0, count: capacity)
        var heights = [UInt32](repeating: 0, count: capacity)
        let count = Int(imagepipe_tiff_levels(reader, &directories, &widths, &heights, Int32(capacity)))
        return (0..<count).map { (directories[$0], Size(Int(widths[$0]), Int(heights[$0]))) }
    }

    /// Which of `levels` (largest first) a decode asked for a picture at least `target` (both as
    /// stored) reads: the smallest still that large, give or take `ImageHeader.levelRoundingSlack`
    /// (the target is rounded up twice, the stage's size and then the plan's headroom, so a level
    /// standing for exactly the scale asked would otherwise be passed over for one four times its
    /// pixels); nil for the full picture.
    static func level(of levels: [Size], atLeast target: Size) -> Int? {
        let slack = ImageHeader.levelRoundingSlack
        return levels.lastIndex { $0.width + slack >= target.width && $0.height + slack >= target.height }
    }

    /// The first directory's ICC profile and XMP packet, without decoding the pixels (`imagepipe info`).
    static func metadata(of input: EncodedInput, path: String?) throws -> ImageMetadata {
        try withReader(input, options: LoadOptions(), path: path) { reader in
            let fields = try readFields(reader, path: path)
            return ImageMetadata(sourceProfile: copied(fields.icc, fields.icc_size), xmp: copied(fields.xmp, fields.xmp_size))
        }
    }

    /// Decodes the first directory of TIFF data to 8-bit RGB or RGBA: turned by its orientation
    /// tag when `options.applyOrientation`, its profile and XMP kept, color managed.
    static func decode(_ input: EncodedInput, options: LoadOptions, path: String?) throws -> Image {
        try withReader(input, options: options, path: path) { reader in try decode(reader, options: options, path: path, handoff: nil) }
    }

    /// The decode of a streamed run, on the decoder's thread: a file of 8-bit RGB or gray samples
    /// in one plane, without alpha, hands its rows as stored to `handoff` a band of strips or
    /// tiles at a time (the reader turns them upright and color manages them), and returns the
    /// ring that held them. Any other file, or one whose rows the reader declines, is decoded as `decode` does,
    /// and that picture is returned.
    static func decodeRows(_ input: EncodedInput, options: LoadOptions, path: String?, handoff: RowHandoff) throws -> Image {
        try withReader(input, options: options, path: path) { reader in try decode(reader, options: options, path: path, handoff: handoff) }
    }

    private static func decode(_ reader: OpaquePointer, options: LoadOptions, path: String?, handoff: RowHandoff?) throws -> Image {
        var fields = try readFields(reader, path: path)
        var metadata = ImageMetadata()
        metadata.sourceProfile = copied(fields.icc, fields.icc_size)
        metadata.xmp = copied(fields.xmp, fields.xmp_size)
        let storedTurn = orientation(of: fields)
        // A plan that shrinks reads the smallest pyramid level still large enough; the picture's
        // orientation, profile and XMP are its first directory's, which a level may not repeat.
        if let wanted = options.atLeast {
            let turned = options.applyOrientation && (5...8).contains(storedTurn)
            let levels = levels(reader)
            if let level = level(of: levels.map(\.size), atLeast: turned ? wanted.transposed : wanted) {
                guard imagepipe_tiff_set_directory(reader, levels[level].directory) == 0 else {
                    throw ImageError(.corrupt, path: path, reason: "cannot read its pyramid level of \(levels[level].size)\(errorSuffix(reader))")
                }
                fields = try readFields(reader, path: path)
            }
        }
        let size = Size(Int(fields.width), Int(fields.height))
        // Before any pixel memory: the size is the directory's word alone.
        try ImageHeader(storedSize: size, format: .tiff).checkPixels(limit: options.maxPixels, path: path)
        try options.checkDeadline(path: path)
        // libjpeg turns JPEG-compressed YCbCr into RGB itself, so it reads as RGB samples.
        var jpegRGB = false
        if fields.compression == COMPRESSION_JPEG, fields.photometric == PHOTOMETRIC_YCBCR, fields.planar_config == PLANARCONFIG_CONTIG,
           imagepipe_tiff_jpeg_as_rgb(reader) == 0 {
            jpegRGB = true
            fields = try readFields(reader, path: path)
        }
        let turn = options.applyOrientation ? storedTurn : 1
        metadata.orientationApplied = options.applyOrientation
        let layout = TIFFSampleLayout(fields, jpegRGB: jpegRGB)
        // The rows go as stored: a streamed run turns them upright itself (a turning level).
        if let handoff, let layout, layout.streams {
            metadata.grayOnly = layout.color == .gray
            let ring = try streamRows(reader, layout: layout, size: size, metadata: metadata, to: handoff, options: options, path: path)
            if let ring { return ring }
        }
        var decoded: Image
        if let layout {
            decoded = try decodeSamples(reader, layout: layout, size: size, profile: metadata.sourceProfile, options: options, path: path)
            metadata.grayOnly = layout.color == .gray
            // CIELab is converted to sRGB from its own definition: a profile beside it describes no RGB.
            if layout.color == .lab { metadata.sourceProfile = nil }
        } else {
            decoded = try decodeRGBA(reader, fields: fields, size: size, options: options, path: path)
        }
        try checkWarnings(reader, options: options, path: path)
        decoded = decoded.orientedByExif(turn)
        return try Image.colorManaged(decoded, metadata: metadata, options: options, path: path)
    }

    /// Hands the rows to the reader of a streamed run: says what the picture is, then decodes
    /// into the ring the reader asks for (the whole picture when it asks for 0), a band of strips
    /// or tiles at a time, each band once the reader has let go of the rows a ring before it.
    /// Returns the ring's picture; nil when the reader declined the rows (nothing is decoded yet).
    private static func streamRows(_ reader: OpaquePointer, layout: TIFFSampleLayout, size: Size, metadata: ImageMetadata,
                                   to handoff: RowHandoff, options: LoadOptions, path: String?) throws -> Image? {
        let rowStride = RowHandoff.Start.rowStride(width: size.width)
        let band = layout.chunkSize(of: size).height
        let ring = handoff.started(RowHandoff.Start(size: size, rowStride: rowStride, channels: 3, metadata: metadata, bandRows: band))
        guard !handoff.declined else { return nil }
        return try Image.make(size: Size(size.width, ring > 0 ? ring : size.height), hasAlpha: false) { writer in
            do {
                guard writer.rowStride == rowStride else { throw ImageError(.tooLarge, path: path, reason: "the ring's rows are not laid out as said") }
                handoff.ready(writer.base)
                let slot = { (y: Int) in writer.base + (ring > 0 ? y % ring : y) * rowStride }
                try readChunks(reader, layout: layout, size: size, channels: 3, options: options, path: path, row: slot,
                               beforeBand: { rows in
                                   guard handoff.room(for: rows.upperBound - 1) else {
                                       throw ImageError(.interrupted, path: path, reason: RowHandoff.readerStopped)
                                   }
                               },
                               afterBand: { rows in
                                   finishPixels(row: slot, rows: rows.clamped(to: options.rowsRead(of: size)), width: size.width, channels: 3, layout: layout)
                                   handoff.made(rows.upperBound)
                               })
                try checkWarnings(reader, options: options, path: path)
            } catch {
                handoff.failing() // the reader lets go of the ring before it is freed
                throw error
            }
        }
    }

    // MARK: libtiff

    /// Opens `input` with libtiff for the length of `body`. No single allocation of libtiff's
    /// may be larger than 8 bytes for each pixel the limit allows (a 16-bit RGBA strip of the
    /// largest picture), at least 64 MiB: a directory that claims more is refused by libtiff.
    private static func withReader<T>(_ input: EncodedInput, options: LoadOptions, path: String?,
                                      _ body: (OpaquePointer) throws -> T) throws -> T {
        let cap = Int64(singleAllocationLimit(maxPixels: options.maxPixels))
        func run(_ open: (inout imagepipe_tiff_messages) -> OpaquePointer?) throws -> T {
            var failure = imagepipe_tiff_messages()
            guard let reader = open(&failure) else {
                throw ImageError(.corrupt, path: path, reason: "libtiff cannot read it: \(text(of: failure.error))")
            }
            defer { imagepipe_tiff_close(reader) }
            return try body(reader)
        }
        switch input {
        case let .bytes(bytes):
            return try bytes.withUnsafeBufferPointer { data in try run { imagepipe_tiff_open(data.baseAddress, data.count, cap, &$0) } }
        case let .file(file):
            // The file is kept alive (and its descriptor open) until libtiff is done with it.
            return try withExtendedLifetime(file) {
                try run { imagepipe_tiff_open_descriptor(file.descriptor, UInt64(file.size), cap, &$0) }
            }
        }
    }

    /// The largest single allocation a decode may make: 8 bytes for each pixel `maxPixels`
    /// allows (a 16-bit RGBA strip of the largest picture), at least 64 MiB; 0 (none) without a limit.
    static func singleAllocationLimit(maxPixels: Int?) -> Int {
        maxPixels.map { max(64 << 20, min($0, Int.max / 8) * 8) } ?? 0
    }

    /// The most samples a pixel may have, as ImageMagick allows (`MaxPixelChannels`); Photoshop
    /// writes at most 56 channels. A directory that claims more is damaged or hostile: 65,535
    /// samples in a 262-byte file asked for a 171 GB strip buffer, and `info` showed them.
    static let maxSamplesPerPixel = 64
    /// The widest sample TIFF has: a 64-bit float.
    static let maxBitsPerSample = 64

    /// The first directory's fields, refused unless its size, samples per pixel and bits per
    /// sample are in range: every buffer is sized by them, and every command reads them here
    /// first (`info`, the header read, the decode).
    private static func readFields(_ reader: OpaquePointer, path: String?) throws -> imagepipe_tiff_fields {
        var fields = imagepipe_tiff_fields()
        guard imagepipe_tiff_read_fields(reader, &fields) == 0, fields.width > 0, fields.height > 0 else {
            throw ImageError(.corrupt, path: path, reason: "the TIFF's first directory gives no picture size"
                + errorSuffix(reader))
        }
        let samples = Int(fields.samples_per_pixel), bits = Int(fields.bits_per_sample)
        guard (1...maxSamplesPerPixel).contains(samples) else {
            throw ImageError(.corrupt, path: path, reason: "the TIFF's first directory claims \(samples) samples per pixel, where at most \(maxSamplesPerPixel) are read")
        }
        guard (1...maxBitsPerSample).contains(bits) else {
            throw ImageError(.corrupt, path: path, reason: "the TIFF's first directory claims \(bits) bits per sample, where a sample has 1 to \(maxBitsPerSample)")
        }
        return fields
    }

    /// The orientation tag, 1 when it says nothing valid.
    private static func orientation(of fields: imagepipe_tiff_fields) -> Int {
        (1...8).contains(Int(fields.orientation)) ? Int(fields.orientation) : 1
    }

    private static func copied(_ pointer: UnsafePointer<UInt8>?, _ count: UInt32) -> [UInt8]? {
        guard let pointer, count > 0 else { return nil }
        return Array(UnsafeBufferPointer(start: pointer, count: Int(count)))
    }

    /// A C string held in a fixed array of a struct.
    static func text<Tuple>(of array: Tuple) -> String {
        withUnsafeBytes(of: array) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
    }

    private static func messages(_ reader: OpaquePointer) -> imagepipe_tiff_messages {
        imagepipe_tiff_reader_messages(reader).pointee
    }

    /// libtiff's first error, as `: message`, or nothing.
    private static func errorSuffix(_ reader: OpaquePointer) -> String {
        let said = messages(reader)
        return said.errors > 0 ? ": \(text(of: said.error))" : ""
    }

    /// Stops at the deadline and when the run is cancelled; called between strips and tiles.
    private static func checkStop(options: LoadOptions, path: String?) throws {
        try options.checkDeadline(path: path)
        try StageContext.checkCancelled()
    }

    /// The error a failed strip or tile read (`got` below 0, or libtiff reported an error while
    /// reading it) is under `options.failOn`, or nil when it is taken as it is: data that ends
    /// early ("Read error …", "Not enough data …") is `truncated`, any other a damaged `error`.
    /// Taken, the part libtiff did not decode stays black.
    private static func damage(_ reader: OpaquePointer, got: Int64, errorsBefore: Int32, what: String, options: LoadOptions,
                               path: String?) -> ImageError? {
        let said = messages(reader)
        guard got < 0 || said.errors > errorsBefore else { return nil }
        let reason = said.errors > errorsBefore ? text(of: said.error) : "libtiff could not decode it"
        let cut = reason.contains("Read error") || reason.contains("Not enough data")
        guard options.refuses(cut ? .truncated : .error) else { return nil }
        return ImageError(.corrupt, path: path, reason: "the TIFF's \(what) cannot be read: \(reason)")
    }

    /// libtiff's first warning as an error, under `fail=warning`.
    private static func checkWarnings(_ reader: OpaquePointer, options: LoadOptions, path: String?) throws {
        let said = messages(reader)
        guard said.warnings > 0, options.refuses(.warning) else { return }
        throw ImageError(.corrupt, path: path, reason: "libtiff warns of the TIFF: \(text(of: said.warning))")
    }

    // MARK: Sample by sample

    /// Reads every strip or tile of every plane and places each sample where `layout` says,
    /// then makes the pixels RGB(A): gray spread to three channels, CMYK converted.
    private static func decodeSamples(_ reader: OpaquePointer, layout: TIFFSampleLayout, size: Size, profile: [UInt8]?,
                                      options: LoadOptions, path: String?) throws -> Image {
        switch layout.color {
        case .gray, .rgb:
            return try Image.make(size: size, hasAlpha: layout.alpha != nil) { writer in
                let row = { (y: Int) in writer.base + y * writer.rowStride }
                try readChunks(reader, layout: layout, size: size, channels: writer.channelCount, options: options, path: path, row: row)
                finishPixels(row: row, rows: options.rowsRead(of: size), width: size.width, channels: writer.channelCount, layout: layout)
            }
        case .lab:
            return try fromLab(reader, layout: layout, size: size, options: options, path: path)
        case .cmyk:
            // Inks (and alpha) gathered first: Little CMS or the plain formula converts them whole.
            var inks = try gatheredSamples(reader, layout: layout, size: size, channels: layout.alpha == nil ? 4 : 5, options: options, path: path,
                                           finishing: true)
            return try fromCMYK(&inks, alpha: layout.alpha != nil, size: size, profile: profile, options: options, path: path)
        }
    }

    /// Every pixel's samples in one buffer, `channels` a pixel (`readChunks`), then, when
    /// `finishing`, with `finishPixels`'s work done on them.
    private static func gatheredSamples(_ reader: OpaquePointer, layout: TIFFSampleLayout, size: Size, channels: Int, options: LoadOptions,
                                        path: String?, finishing: Bool) throws -> [UInt8] {
        let (count, overflow) = size.pixelCount.multipliedReportingOverflow(by: channels)
        guard !overflow else { throw ImageError.tooManyPixels(size, limit: options.maxPixels ?? 0, path: path) }
        var samples = [UInt8](repeating: 0, count: count)
        try samples.withUnsafeMutableBufferPointer { buffer in
            let row = { (y: Int) in buffer.baseAddress! + y * size.width * channels }
            try readChunks(reader, layout: layout, size: size, channels: channels, options: options, path: path, row: row)
            if finishing { finishPixels(row: row, rows: 0..<size.height, width: size.width, channels: channels, layout: layout) }
        }
        return samples
    }

    /// Decodes the strips or tiles into the rows `row` gives, `channels` bytes a pixel: color
    /// samples to the first channels, alpha to the last, other samples dropped. 16-bit samples
    /// (libtiff has put them in the machine's byte order) are rounded to 8 bits. Each band of
    /// strips or tiles across the picture is told to `beforeBand` and `afterBand` (once a plane).
    private static func readChunks(_ reader: OpaquePointer, layout: TIFFSampleLayout, size: Size, channels: Int, options: LoadOptions,
                                   path: String?, row address: (Int) -> UnsafeMutablePointer<UInt8>,
                                   beforeBand: (Range<Int>) throws -> Void = { _ in },
                                   afterBand: (Range<Int>) throws -> Void = { _ in }) throws {
        let samples = layout.samplesPerPixel
        // Where each sample of a pixel goes: its channel, or -1 for one dropped.
        var target = [Int](repeating: -1, count: samples)
        for sample in 0..<layout.color.samples { target[sample] = sample }
        if let alpha = layout.alpha { target[alpha] = channels - 1 }
        let planes = layout.separate ? samples : 1
        let inChunk = layout.separate ? 1 : samples
        let chunk = layout.chunkSize(of: size)
        // A tile far larger than the picture (past the 4096x4096 `save tile=` allows) is a lie of a
        // damaged directory: it would only cost memory.
        guard chunk.width <= 1 << 16, chunk.height <= 1 << 16, chunk.pixelCount <= max(1 << 24, 2 * size.pixelCount) else {
            throw ImageError(.corrupt, path: path, reason: "the TIFF's tiles of \(chunk) pixels are far larger than its \(size) picture")
        }
        let across = (size.width + chunk.width - 1) / chunk.width, down = (size.height + chunk.height - 1) / chunk.height
        guard planes * across * down <= layout.chunkCount else {
            throw ImageError(.corrupt, path: path, reason: "the TIFF has \(layout.chunkCount) strips or tiles, fewer than its size needs")
        }
        let sampleBytes = layout.bits / 8
        let chunkRowBytes = chunk.width * inChunk * sampleBytes
        let chunkBytes = chunkRowBytes * chunk.height
        // The strip or tile buffer is held to what libtiff's own allocations are (`withReader`):
        // its size comes from the directory, whatever data the file holds.
        let cap = singleAllocationLimit(maxPixels: options.maxPixels)
        guard cap == 0 || chunkBytes <= cap else {
            throw ImageError(.tooLarge, path: path, reason: "the TIFF's \(layout.tiled ? "tiles" : "strips") of \(chunk) pixels, \(inChunk) samples of \(layout.bits) bits each, "
                             + "would take \(chunkBytes) bytes, more than the \(cap) allowed for pictures within the limit of \(options.maxPixels ?? 0) pixels",
                             remedy: .raisePixelLimit)
        }
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: chunkBytes, alignment: 16)
        defer { buffer.deallocate() }
        // 8-bit rows whose samples land as they lie (RGB into RGB, RGBA into RGBA) are copied whole.
        // CIELab's a* and b* are signed: their sign bit flipped, they are offset by half the range,
        // as Little CMS takes them (128, or 32768, is 0).
        var flip = [UInt16](repeating: 0, count: samples)
        if layout.color == .lab { flip[1] = sampleBytes == 1 ? 0x80 : 0x8000; flip[2] = flip[1] }
        let copiesRows = sampleBytes == 1 && !layout.separate && inChunk == channels && target == Array(0..<channels) && layout.color != .lab
        let what = layout.tiled ? "tile" : "strip"
        for plane in 0..<planes {
            for row in 0..<down {
                let band = (row * chunk.height)..<min(size.height, (row + 1) * chunk.height)
                try beforeBand(band)
                for column in 0..<across {
                    try checkStop(options: options, path: path)
                    let x0 = column * chunk.width, y0 = row * chunk.height
                    let rows = min(chunk.height, size.height - y0), columns = min(chunk.width, size.width - x0)
                    // A strip or tile outside the rectangle the run reads is passed over, its pixels
                    // not even cleared: nothing reads them (clearing a 24112-pixel-wide picture's
                    // rows took a third of a 512x512 tile's time).
                    if let region = options.region, x0 >= region.x + region.width || x0 + columns <= region.x
                        || y0 >= region.y + region.height || y0 + rows <= region.y {
                        continue
                    }
                    let index = (plane * down + row) * across + column
                    let errorsBefore = messages(reader).errors
                    if !options.refuses(.error) { buffer.initializeMemory(as: UInt8.self, repeating: 0, count: chunkBytes) }
                    let got = imagepipe_tiff_read_chunk(reader, UInt32(index), buffer, chunkBytes)
                    if let damage = damage(reader, got: got, errorsBefore: errorsBefore, what: "\(what) \(index)", options: options, path: path) {
                        throw damage
                    }
                    for y in 0..<rows {
                        let from = buffer + y * chunkRowBytes
                        let to = address(y0 + y) + x0 * channels
                        if copiesRows {
                            to.update(from: from.assumingMemoryBound(to: UInt8.self), count: columns * channels)
                        } else if sampleBytes == 1 {
                            let source = from.assumingMemoryBound(to: UInt8.self)
                            for x in 0..<columns {
                                for sample in 0..<inChunk {
                                    let index = layout.separate ? plane : sample, channel = target[index]
                                    if channel >= 0 { to[x * channels + channel] = source[x * inChunk + sample] ^ UInt8(truncatingIfNeeded: flip[index]) }
                                }
                            }
                        } else {
                            let source = from.assumingMemoryBound(to: UInt16.self)
                            for x in 0..<columns {
                                for sample in 0..<inChunk {
                                    let index = layout.separate ? plane : sample, channel = target[index]
                                    guard channel >= 0 else { continue }
                                    let value = source[x * inChunk + sample]
                                    // a* and b* are in 256ths of a unit: rounded to whole units, 8 bits' own.
                                    to[x * channels + channel] = flip[index] == 0 ? Self.eightBits(value) : UInt8(min(255, (Int(value ^ flip[index]) + 128) >> 8))
                                }
                            }
                        }
                    }
                }
                try afterBand(band)
            }
        }
    }

    /// A 16-bit sample rounded to the nearest of 256 levels (0xFF00 is 254, where keeping the high
    /// byte gives 255).
    @inline(__always) static func eightBits(_ value: UInt16) -> UInt8 {
        UInt8((UInt32(value) * 255 + 32767) / 65535)
    }

    /// What is left once the samples of `rows` are in place: associated alpha divided out,
    /// min-is-white gray turned round, gray spread into the three channels of RGB.
    private static func finishPixels(row address: (Int) -> UnsafeMutablePointer<UInt8>, rows: Range<Int>, width: Int, channels: Int,
                                     layout: TIFFSampleLayout) {
        let colors = layout.color.samples
        let unpremultiply = layout.alpha != nil && layout.associatedAlpha
        let gray = layout.color == .gray
        guard unpremultiply || gray else { return }
        for y in rows {
            let row = address(y)
            for x in 0..<width {
                let pixel = row + x * channels
                if unpremultiply {
                    let alpha = Int(pixel[channels - 1])
                    for channel in 0..<colors {
                        pixel[channel] = alpha == 0 ? 0 : UInt8(min(255, (Int(pixel[channel]) * 255 + alpha / 2) / alpha))
                    }
                }
                if gray {
                    let level = layout.minIsWhite ? 255 - pixel[0] : pixel[0]
                    pixel[0] = level
                    pixel[1] = level
                    pixel[2] = level
                }
            }
        }
    }

    /// RGB(A) from CIELab samples through Little CMS, from Lab (D50, the white TIFF's CIELab is
    /// relative to) to sRGB, as libvips converts them. libtiff's RGBA interface converts Lab with
    /// its own D65 display model, which tinted white to 255,252,222. Associated alpha is left as
    /// it is: Lab multiplied by alpha has no meaning a reader agrees on.
    private static func fromLab(_ reader: OpaquePointer, layout: TIFFSampleLayout, size: Size, options: LoadOptions,
                                path: String?) throws -> Image {
        let channels = layout.alpha == nil ? 3 : 4
        let samples = try gatheredSamples(reader, layout: layout, size: size, channels: channels, options: options, path: path, finishing: false)
        let transform = try ColorTransform.make(from: .labD50, to: .sRGB, input: channels == 4 ? .labAlpha : .lab,
                                                output: channels == 4 ? .rgba : .rgb, intent: options.intent)
        return try Image.make(size: size, hasAlpha: channels == 4) { writer in
            samples.withUnsafeBufferPointer { buffer in
                transform.convert(buffer.baseAddress!, sourceStride: size.width * channels, into: writer.base, targetStride: writer.rowStride,
                                  width: size.width, rows: size.height)
            }
        }
    }

    /// RGB(A) from CMYK pixels (C M Y K, and alpha when `alpha`), through the file's profile when
    /// it is a CMYK one, else by the plain formula (`Image.fromCMYK`).
    private static func fromCMYK(_ inks: inout [UInt8], alpha: Bool, size: Size, profile: [UInt8]?, options: LoadOptions,
                                 path: String?) throws -> Image {
        var alphas: [UInt8] = []
        if alpha {
            // Alpha taken out, the inks packed four bytes a pixel in place (each pixel moves back).
            alphas.reserveCapacity(size.pixelCount)
            for pixel in 0..<size.pixelCount {
                alphas.append(inks[pixel * 5 + 4])
                for channel in 0..<4 { inks[pixel * 4 + channel] = inks[pixel * 5 + channel] }
            }
        }
        let opaque: Image
        do {
            opaque = try inks.withUnsafeBufferPointer { buffer in
                try Image.fromCMYK(buffer.baseAddress!, size: size, stride: size.width * 4, profile: profile.flatMap(ICCProfile.cached),
                                   intent: options.intent)
            }
        } catch var error as ImageError {
            error.path = path
            throw error
        }
        guard alpha else { return opaque }
        return try Image.make(size: size, hasAlpha: true) { writer in
            for y in 0..<size.height {
                let from = opaque.row(y), to = writer.row(y)
                for x in 0..<size.width {
                    to[x * 4] = from[x * 3]
                    to[x * 4 + 1] = from[x * 3 + 1]
                    to[x * 4 + 2] = from[x * 3 + 2]
                    to[x * 4 + 3] = alphas[y * size.width + x]
                }
            }
        }
    }

    // MARK: The RGBA interface

    /// Everything not read sample by sample, through libtiff's RGBA interface a band of strips
    /// or tiles at a time, in storage order. Alpha is kept only when the file has some; libtiff
    /// hands color multiplied by alpha (unassociated alpha too) except for gray with alpha.
    private static func decodeRGBA(_ reader: OpaquePointer, fields: imagepipe_tiff_fields, size: Size, options: LoadOptions,
                                   path: String?) throws -> Image {
        guard imagepipe_tiff_rgba_begin(reader, options.refuses(.error) ? 1 : 0) == 0 else {
            throw ImageError(.unsupported, path: path, reason: "libtiff cannot read this kind of TIFF\(errorSuffix(reader))")
        }
        let alpha = fields.alpha_kind != 0
        let gray = fields.photometric == PHOTOMETRIC_MINISBLACK || fields.photometric == PHOTOMETRIC_MINISWHITE
        // A band is a strip's or a tile's height: libtiff decodes each strip once per call.
        let bandRows = max(1, min(size.height, Int(fields.tiled != 0 ? fields.tile_length : fields.rows_per_strip)))
        let (bandBytes, overflow) = (size.width * 4).multipliedReportingOverflow(by: bandRows)
        guard !overflow else { throw ImageError.tooManyPixels(size, limit: options.maxPixels ?? 0, path: path) }
        let band = UnsafeMutablePointer<UInt8>.allocate(capacity: bandBytes)
        defer { band.deallocate() }
        return try Image.make(size: size, hasAlpha: alpha) { writer in
            var first = 0
            while first < size.height {
                try checkStop(options: options, path: path)
                let rows = min(bandRows, size.height - first)
                let errorsBefore = messages(reader).errors
                band.initialize(repeating: 0, count: rows * size.width * 4)
                let status = imagepipe_tiff_rgba_rows(reader, UInt32(first), UInt32(rows), band)
                if let damage = damage(reader, got: status < 0 ? -1 : 0, errorsBefore: errorsBefore, what: "rows from \(first)",
                                       options: options, path: path) {
                    throw damage
                }
                for y in 0..<rows {
                    let from = band + y * size.width * 4, to = writer.row(first + y)
                    if alpha {
                        for x in 0..<size.width * 4 { to[x] = from[x] }
                        if !gray {
                            for x in 0..<size.width {
                                let a = Int(from[x * 4 + 3])
                                for channel in 0..<3 {
                                    to[x * 4 + channel] = a == 0 ? 0 : UInt8(min(255, (Int(from[x * 4 + channel]) * 255 + a / 2) / a))
                                }
                            }
                        }
                    } else {
                        for x in 0..<size.width {
                            to[x * 3] = from[x * 4]
                            to[x * 3 + 1] = from[x * 4 + 1]
                            to[x * 3 + 2] = from[x * 4 + 2]
                        }
                    }
                }
                first += rows
            }
        }
    }
}
