import CWebP

/// WebP writing through libwebp directly (gdk-pixbuf's WebP saver takes only
/// a quality): lossless and near-lossless modes, encoder effort, alpha quality, and the ICC
/// profile, EXIF and XMP chunks (assembled by libwebpmux).
enum WebPEncoder {
    /// Once `cancellation` is set, libwebp is told to give up at its next progress report, and the
    /// encode ends with the `stopped` error.
    static func encode(_ image: Image, quality: Int, lossless: Bool, nearLossless: Bool, effort: Int, alphaQuality: Int,
                       metadata: OutputMetadata, cancellation: Cancellation? = nil) throws -> [UInt8] {
        var config = try configuration(quality: quality, lossless: lossless, nearLossless: nearLossless, effort: effort, alphaQuality: alphaQuality)

        var picture = try picture(of: image, argb: config.lossless != 0)
        defer { WebPPictureFree(&picture) }

        var writer = WebPMemoryWriter()
        WebPMemoryWriterInit(&writer)
        defer { WebPMemoryWriterClear(&writer) }
        picture.writer = WebPMemoryWrite
        if let cancellation {
            // The caller holds the cancellation for the whole call; libwebp only hands it back.
            picture.user_data = Unmanaged.passUnretained(cancellation).toOpaque()
            picture.progress_hook = { _, picture in
                guard let data = picture?.pointee.user_data else { return 1 }
                return Unmanaged<Cancellation>.fromOpaque(data).takeUnretainedValue().isCancelled ? 0 : 1
            }
        }
        try withUnsafeMutablePointer(to: &writer) { pointer in
            picture.custom_ptr = UnsafeMutableRawPointer(pointer)
            guard WebPEncode(&config, &picture) != 0 else {
                if cancellation?.isCancelled == true { throw Cancellation.stopped(path: nil) }
                throw ImageError(.unwritable, reason: "libwebp could not encode the picture (error \(picture.error_code.rawValue))")
            }
        }
        let plain = Array(UnsafeBufferPointer(start: writer.mem, count: writer.size))
        guard metadata.icc != nil || metadata.exif != nil || metadata.xmp != nil else { return plain }
        return try withChunks(plain, metadata.describing(image.size))
    }

    /// libwebp's copy of `image`, in ARGB (what lossless coding and animation frames take) or
    /// YUV; the caller frees it with `WebPPictureFree`.
    static func picture(of image: Image, argb: Bool) throws -> WebPPicture {
        var picture = WebPPicture()
        guard WebPPictureInit(&picture) != 0 else { throw ImageError(.unwritable, reason: "libwebp could not start a picture") }
        picture.use_argb = argb ? 1 : 0
        picture.width = Int32(image.width)
        picture.height = Int32(image.height)
        let imported = image.hasAlpha
            ? WebPPictureImportRGBA(&picture, image.pixels, Int32(image.rowStride))
            : WebPPictureImportRGB(&picture, image.pixels, Int32(image.rowStride))
        guard imported != 0 else {
            WebPPictureFree(&picture)
            throw ImageError(.unwritable, reason: "not enough memory for libwebp's copy of the picture")
        }
        return picture
    }

    /// libwebp's settings for `save`'s options (also each frame's, for an animation).
    static func configuration(quality: Int, lossless: Bool, nearLossless: Bool, effort: Int, alphaQuality: Int) throws -> WebPConfig {
        var config = WebPConfig()
        guard WebPConfigPreset(&config, WEBP_PRESET_DEFAULT, Float(quality)) != 0 else {
            throw ImageError(.unwritable, reason: "libwebp refused its configuration (library version mismatch)")
        }
        config.method = Int32(min(max(effort, 0), 6))
        config.alpha_quality = Int32(min(max(alphaQuality, 0), 100))
        // Near-lossless is lossless coding of pixels adjusted within `quality`, as libvips and sharp take it.
        config.lossless = lossless || nearLossless ? 1 : 0
        if nearLossless && !lossless { config.near_lossless = Int32(quality) }
        // Two threads where libwebp can use them (analysis and alpha): the same bytes, sooner.
        config.thread_level = 1
        guard WebPValidateConfig(&config) != 0 else { throw ImageError(.unwritable, reason: "libwebp refused its configuration") }
        return config
    }

    /// The file with ICCP, EXIF and XMP chunks added (and the VP8X header they need).
    private static func withChunks(_ webp: [UInt8], _ metadata: OutputMetadata) throws -> [UInt8] {
        guard let mux = WebPMuxNew() else { throw ImageError(.unwritable, reason: "libwebpmux could not start") }
        defer { WebPMuxDelete(mux) }
        // copy_data 1: the mux keeps its own copies, so the buffers need live only for the call.
        let imageStatus = webp.withUnsafeBufferPointer { buffer in
            var image = WebPData(bytes: buffer.baseAddress, size: buffer.count)
            return WebPMuxSetImage(mux, &image, 1)
        }
        guard imageStatus == WEBP_MUX_OK else { throw ImageError(.unwritable, reason: "libwebpmux refused the picture") }
        for (tag, bytes) in [("ICCP", metadata.icc), ("EXIF", metadata.exif), ("XMP ", metadata.xmp)] {
            guard let bytes else { continue }
            let status = bytes.withUnsafeBufferPointer { buffer in
                var chunk = WebPData(bytes: buffer.baseAddress, size: buffer.count)
                return WebPMuxSetChunk(mux, tag, &chunk, 1)
            }
            guard status == WEBP_MUX_OK else { throw ImageError(.unwritable, reason: "libwebpmux refused the \(tag) chunk") }
        }
        var assembled = WebPData()
        guard WebPMuxAssemble(mux, &assembled) == WEBP_MUX_OK else { throw ImageError(.unwritable, reason: "libwebpmux could not assemble the file") }
        defer { WebPDataClear(&assembled) }
        return Array(UnsafeBufferPointer(start: assembled.bytes, count: assembled.size))
    }
}
