import CSpng
#if canImport(Glibc)
import Glibc
#endif

/// 16-bit PNGs decoded by libspng (the PNG library libvips uses) and rounded to 8 bits, where
/// gdk-pixbuf's loader keeps each sample's high byte: 0xFF00, nearer 254 than 255, became 255,
/// and a 16-bit gradient lost up to one level everywhere. Rounding is v · 255 / 65535 to the
/// nearest whole level, what libvips' and Pillow's own conversions do. libspng also checks
/// every chunk's CRC and reports data cut short as errors.
enum SixteenBitPNG {
    /// Whether a PNG's IHDR (at its fixed place) says 16 bits a sample.
    static func isSixteenBit(_ bytes: some Collection<UInt8>) -> Bool {
        let start = Array(bytes.prefix(25))
        return start.count == 25 && start[24] == 16
    }

    /// The picture, RGB or RGBA (alpha when the PNG has an alpha channel or a tRNS color), its
    /// samples rounded to 8 bits. Profile, EXIF and orientation are the caller's.
    static func decode(_ bytes: [UInt8], options: LoadOptions, path: String?) throws -> Image {
        guard let context = spng_ctx_new(0) else { throw ImageError(.unreadable, path: path, reason: "libspng could not start") }
        defer { spng_ctx_free(context) }
        func check(_ status: Int32, _ what: String) throws {
            guard status == 0 else {
                throw ImageError(.corrupt, path: path, reason: "the PNG's \(what) cannot be read: \(String(cString: spng_strerror(status)))")
            }
        }
        return try bytes.withUnsafeBytes { buffer in
            try check(spng_set_png_buffer(context, buffer.baseAddress, buffer.count), "data")
            if !options.refuses(.error) { _ = spng_set_crc_action(context, Int32(SPNG_CRC_USE.rawValue), Int32(SPNG_CRC_USE.rawValue)) }
            // Text and other ancillary chunks are not kept here: at most 64 MiB in all.
            _ = spng_set_chunk_limits(context, 1 << 26, 1 << 26)
            var header = spng_ihdr()
            try check(spng_get_ihdr(context, &header), "header")
            let size = Size(Int(header.width), Int(header.height))
            try ImageHeader(storedSize: size, format: "png").checkPixels(limit: options.maxPixels, path: path)
            var transparency = spng_trns()
            let alpha = header.color_type == UInt8(SPNG_COLOR_TYPE_GRAYSCALE_ALPHA.rawValue)
                || header.color_type == UInt8(SPNG_COLOR_TYPE_TRUECOLOR_ALPHA.rawValue)
                || spng_get_trns(context, &transparency) == 0
            var length = 0
            try check(spng_decoded_image_size(context, Int32(SPNG_FMT_RGBA16.rawValue), &length), "size")
            var samples = [UInt16](repeating: 0, count: length / 2)
            try samples.withUnsafeMutableBytes { out in
                try check(spng_decode_image(context, out.baseAddress, out.count, Int32(SPNG_FMT_RGBA16.rawValue), Int32(SPNG_DECODE_TRNS.rawValue)),
                          "image data")
            }
            return try Image.make(size: size, hasAlpha: alpha) { writer in
                let channels = writer.channelCount
                for y in 0..<size.height {
                    let row = writer.row(y), source = y * size.width * 4
                    for x in 0..<size.width {
                        for c in 0..<channels {
                            // Samples come in host order from libspng's RGBA16.
                            let value = UInt32(samples[source + x * 4 + c])
                            row[x * channels + c] = UInt8((value * 255 + 32_767) / 65_535)
                        }
                    }
                }
            }
        }
    }
}
