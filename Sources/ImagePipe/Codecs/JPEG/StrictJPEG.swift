import CGdkPixbuf
import CJPEGStrict

/// JPEG decoding through libjpeg directly, so that corrupt data is an error: gdk-pixbuf's loader
/// ignores libjpeg's warnings and returns a garbled or grey picture for a bit-flipped or cut
/// file. Also decodes reduced in the DCT for shrink-on-load, keeps the ICC profile, EXIF and
/// XMP, and turns CMYK into RGB through the picture's profile (`Image.fromCMYK`). Below the
/// `fail` levels a warning calls for it decodes what is there, which gdk-pixbuf's loader cannot
/// do for a cut progressive JPEG ("Improper call to JPEG library in state 205").
enum StrictJPEG {
    static func isJPEG(_ bytes: [UInt8]) -> Bool { bytes.count > 3 && bytes[0] == 0xFF && bytes[1] == 0xD8 && bytes[2] == 0xFF }

    /// The pixels of a file (streamed from it) as libjpeg gives them (CMYK made RGB), not yet
    /// turned or color managed, with the metadata: what `finished` completes. `watcher` hears of
    /// the rows as they come.
    static func decodeRaw(file: OpenedFile, orientation: Int, options: LoadOptions, watcher: RowHandoff?) throws -> (Image, ImageMetadata) {
        func decode(watching: UnsafePointer<imagepipe_jpeg_watcher>?) throws -> (Image, ImageMetadata) {
            try withExtendedLifetime(file) {
                try Self.decode(orientation: orientation, options: options, path: file.path, watcher: watcher) { target, maxPixels, limits, region, resampling, result, message, count in
                    imagepipe_jpeg_decode_descriptor(file.descriptor, target.width, target.height, maxPixels, options.failOn.jpegLevel, limits,
                                                     region, watching, resampling, result, message, count)
                }
            }
        }
        guard var watching = watcher?.watcher else { return try decode(watching: nil) }
        return try withUnsafePointer(to: &watching) { try decode(watching: $0) }
    }

    /// The decoded picture of bytes in memory.
    static func decode(_ bytes: [UInt8], options: LoadOptions, path: String?) throws -> Image {
        let orientation = try JPEGHeader.read(bytes, path: path).orientation
        let raw = try decode(orientation: orientation, options: options, path: path, watcher: nil) { target, maxPixels, limits, region, resampling, result, message, count in
            bytes.withUnsafeBufferPointer { data in
                imagepipe_jpeg_decode(data.baseAddress, data.count, target.width, target.height, maxPixels, options.failOn.jpegLevel, limits,
                                      region, nil, resampling, result, message, count)
            }
        }
        return try finished(raw, orientation: orientation, options: options, path: path)
    }

    /// The metadata libjpeg kept of a decode.
    static func metadata(of result: imagepipe_jpeg_result, applyOrientation: Bool) -> ImageMetadata {
        func bytes(_ pointer: UnsafeMutablePointer<UInt8>?, _ count: Int) -> [UInt8]? {
            pointer.map { Array(UnsafeBufferPointer(start: $0, count: count)) }
        }
        var metadata = ImageMetadata(sourceProfile: bytes(result.icc, result.icc_size), exif: bytes(result.exif, result.exif_size),
                                     xmp: bytes(result.xmp, result.xmp_size), orientationApplied: applyOrientation)
        if let first = result.warning {
            let more = result.warnings > 1 ? " (and \(result.warnings - 1) more warning\(result.warnings > 2 ? "s" : ""))" : ""
            metadata.decodeWarnings = ["libjpeg warns: \(String(cString: first))\(more)"]
        }
        return metadata.screeningEXIF()
    }

    /// A raw decode turned as its EXIF orientation says (when asked) and color managed.
    static func finished(_ raw: (Image, ImageMetadata), orientation: Int, options: LoadOptions, path: String?) throws -> Image {
        let decoded = options.applyOrientation ? raw.0.orientedByExif(orientation) : raw.0
        return try Image.colorManaged(decoded, metadata: raw.1, options: options, path: path)
    }

    private typealias Decoder = ((width: Int32, height: Int32), Int64, UnsafePointer<imagepipe_jpeg_limits>, UnsafePointer<imagepipe_jpeg_region>?,
                                 UnsafePointer<imagepipe_jpeg_resampling>?, UnsafeMutablePointer<imagepipe_jpeg_result>, UnsafeMutablePointer<CChar>,
                                 Int) -> Int32

    /// The most scans a progressive JPEG may have, as TurboJPEG's `TJFLAG_LIMITSCANS` (500):
    /// encoders write about ten, and each scan walks every block of the picture again, so a
    /// small file of thousands of tiny scans takes minutes.
    static let maxScans: Int32 = 500

    /// `watcher`, when the rows were handed to a reader, is told before the pixels are freed on a failure.
    private static func decode(orientation: Int, options: LoadOptions, path: String?, watcher: RowHandoff?,
                               _ run: Decoder) throws -> (Image, ImageMetadata) {
        // Sizes asked of the decoder are the stored picture's: a quarter turn swaps them.
        let turned = options.applyOrientation && (5...8).contains(orientation)
        var target = options.atLeast ?? Size(0, 0)
        if turned { target = target.transposed }
        var result = imagepipe_jpeg_result()
        var message = [CChar](repeating: 0, count: 256)
        let count = message.count
        var deadline = options.deadline ?? .now
        let status = withUnsafeMutablePointer(to: &deadline) { deadline in
            let shouldStop: @convention(c) (UnsafeMutableRawPointer?) -> Int32 = { context in
                ContinuousClock.now > context!.assumingMemoryBound(to: ContinuousClock.Instant.self).pointee ? 1 : 0
            }
            var limits = imagepipe_jpeg_limits(max_scans: Self.maxScans, should_stop: options.deadline == nil ? nil : shouldStop,
                                               context: UnsafeMutableRawPointer(deadline))
            let size = (Int32(clamping: target.width), Int32(clamping: target.height)), maxPixels = Int64(options.maxPixels ?? 0)
            // The rectangle the run reads (`Plan.decodeRegion`), in the decode's own coordinates:
            // a plan reads one only of a picture not turned by its orientation.
            let region = options.region.map {
                imagepipe_jpeg_region(x: Int32(clamping: $0.x), y: Int32(clamping: $0.y), width: Int32(clamping: $0.width), height: Int32(clamping: $0.height))
            }
            // Resampling in the planes, as stored: a picture turned by its EXIF orientation is
            // turned after (`finished`, or the streamed run's first level), small. A JPEG whose
            // planes cannot be resampled (its header did not tell) is decoded as RGB.
            if var asked = options.decodeResampling {
                if turned { asked.size = asked.size.transposed }
                let planner = PlanePlanner(resampling: asked)
                var resampling = planner.interface
                let status = withExtendedLifetime(planner) { run(size, maxPixels, &limits, nil, &resampling, &result, &message, count) }
                if status != -6 { return status }
            }
            return withOptionalPointer(region) { run(size, maxPixels, &limits, $0, nil, &result, &message, count) }
        }
        let reason = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        switch status {
        case 0: break
        case -2: throw ImageError(.tooLarge, path: path, reason: reason)
        case -3: throw ImageError(.timedOut, path: path, reason: reason)
        case -4: throw ImageError(.corrupt, path: path, reason: reason)
        case -5: throw ImageError(.interrupted, path: path, reason: RowHandoff.readerStopped)
        default: throw ImageError(.corrupt, path: path, reason: reason.isEmpty ? "libjpeg could not decode it" : reason)
        }
        defer { imagepipe_jpeg_free_metadata(&result) }
        let metadata = metadata(of: result, applyOrientation: options.applyOrientation)
        let size = Size(Int(result.width), Int(result.height))
        if result.channels == 4 {
            defer { imagepipe_jpeg_free(result.pixels, nil) }
            let profile = metadata.sourceProfile.flatMap(ICCProfile.cached)
            do {
                return (try Image.fromCMYK(result.pixels, size: size, stride: Int(result.rowstride), profile: profile, intent: options.intent),
                        metadata)
            } catch var error as ImageError {
                error.path = path
                throw error
            }
        }
        let destroy: GdkPixbufDestroyNotify = { pixels, _ in imagepipe_jpeg_free(pixels, nil) }
        // A decode into a ring (the streamed run) gives the ring, which is no picture: the image
        // made of it only holds its memory until the reader is done.
        let heldRows = watcher.map(\.ring).flatMap { $0 > 0 ? Int32($0) : nil } ?? result.height
        guard let pixbuf = gdk_pixbuf_new_from_data(result.pixels, GDK_COLORSPACE_RGB, 0, 8, result.width, heldRows,
                                                    result.rowstride, destroy, nil) else {
            watcher?.failing()
            imagepipe_jpeg_free(result.pixels, nil)
            throw ImageError(.tooLarge, path: path, reason: "cannot hold a \(result.width)x\(result.height) picture")
        }
        return (Image(adopting: pixbuf), metadata)
    }
}

private extension FailOn {
    /// The level as jpeg_strict.c numbers it: 0 none, 1 truncated, 2 error, 3 warning.
    var jpegLevel: Int32 { Int32(FailOn.allCases.firstIndex(of: self)!) }
}
