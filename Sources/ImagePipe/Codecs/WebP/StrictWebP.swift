import CWebP

/// WebP decoded by libwebp directly, to its end: gdk-pixbuf's WebP loader turns data cut short
/// inside the VP8 or VP8L stream (the container's sizes still right) into a picture whose
/// missing rows are black, without an error; libvips and Pillow refuse such a file, and so does
/// this with the default `fail=true`. The pixels are libwebp's either way.
enum StrictWebP {
    /// The picture of a still WebP (an animation's first frame, cut out by `FirstFrame`), with
    /// its profile, EXIF and XMP, color-managed as every decode is.
    static func decode(_ bytes: [UInt8], options: LoadOptions, path: String?) throws -> Image {
        var truncation = TruncationCheck()
        bytes.withUnsafeBytes { truncation.scan($0) }
        if let cut = truncation.truncation(format: "webp") { throw ImageError(.corrupt, path: path, reason: cut) }
        var features = WebPBitstreamFeatures()
        let status = bytes.withUnsafeBufferPointer { WebPGetFeaturesInternal($0.baseAddress, $0.count, &features, WEBP_DECODER_ABI_VERSION) }
        guard status == VP8_STATUS_OK, features.width > 0, features.height > 0 else {
            throw ImageError(.corrupt, path: path, reason: "libwebp cannot read the WebP header (status \(status.rawValue))")
        }
        let size = Size(Int(features.width), Int(features.height))
        try ImageHeader(storedSize: size, format: "webp").checkPixels(limit: options.maxPixels, path: path)
        let alpha = features.has_alpha != 0
        let image = try Image.make(size: size, hasAlpha: alpha) { writer in
            let length = writer.rowStride * (size.height - 1) + size.width * writer.channelCount
            let decoded = bytes.withUnsafeBufferPointer { input in
                alpha ? WebPDecodeRGBAInto(input.baseAddress, input.count, writer.base, length, Int32(writer.rowStride))
                      : WebPDecodeRGBInto(input.baseAddress, input.count, writer.base, length, Int32(writer.rowStride))
            }
            guard decoded != nil else {
                throw ImageError(.corrupt, path: path, reason: "the WebP image data is damaged or cut short: libwebp cannot decode it to its end")
            }
        }
        return try Image.finished(image, from: bytes, format: .webp, options: options, path: path)
    }
}
