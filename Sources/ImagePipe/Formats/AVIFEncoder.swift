import CAvif

/// AVIF writing through libavif (with the AV1 encoder it prefers, libaom on Debian): quality,
/// speed, chroma subsampling, lossless, and the ICC profile, EXIF and XMP.
///
/// Quality maps onto AV1's quantizer 0–63 as libheif (behind libvips' `heifsave`) and libavif
/// 1.0 map it: quantizer = ((100 − quality) · 63 + 50) / 100, used as both the least and the
/// most the encoder may take, so that one quality always gives the same quantizer.
enum AVIFEncoder {
    static func encode(_ image: Image, quality: Int, speed: Int, chroma: ChromaSubsampling, lossless: Bool,
                       metadata: OutputMetadata) throws -> [UInt8] {
        let format: avifPixelFormat
        switch lossless ? .c444 : chroma.resolved(quality: quality) {
        case .c444: format = AVIF_PIXEL_FORMAT_YUV444
        case .c422: format = AVIF_PIXEL_FORMAT_YUV422
        default: format = AVIF_PIXEL_FORMAT_YUV420
        }
        guard let avif = avifImageCreate(UInt32(image.width), UInt32(image.height), 8, format) else {
            throw ImageError(.unwritable, reason: "libavif could not make a \(image.size) picture")
        }
        defer { avifImageDestroy(avif) }
        avif.pointee.yuvRange = AVIF_RANGE_FULL
        // Lossless AV1 keeps RGB as it is (the identity matrix); lossy converts with BT.601, as
        // libheif does. Without a profile, the CICP fields say sRGB.
        avif.pointee.matrixCoefficients = UInt16(lossless ? AVIF_MATRIX_COEFFICIENTS_IDENTITY : AVIF_MATRIX_COEFFICIENTS_BT601)
        if metadata.icc == nil {
            avif.pointee.colorPrimaries = UInt16(AVIF_COLOR_PRIMARIES_BT709)
            avif.pointee.transferCharacteristics = UInt16(AVIF_TRANSFER_CHARACTERISTICS_SRGB)
        }
        if let icc = metadata.icc { icc.withUnsafeBufferPointer { avifImageSetProfileICC(avif, $0.baseAddress, $0.count) } }
        if let exif = metadata.exif { exif.withUnsafeBufferPointer { avifImageSetMetadataExif(avif, $0.baseAddress, $0.count) } }
        if let xmp = metadata.xmp { xmp.withUnsafeBufferPointer { avifImageSetMetadataXMP(avif, $0.baseAddress, $0.count) } }

        var rgb = avifRGBImage()
        avifRGBImageSetDefaults(&rgb, avif)
        rgb.depth = 8
        rgb.format = image.hasAlpha ? AVIF_RGB_FORMAT_RGBA : AVIF_RGB_FORMAT_RGB
        rgb.pixels = UnsafeMutablePointer(mutating: image.pixels) // only read
        rgb.rowBytes = UInt32(image.rowStride)
        var result = avifImageRGBToYUV(avif, &rgb)
        guard result == AVIF_RESULT_OK else { throw failure("convert the picture to YUV", result) }

        guard let encoder = avifEncoderCreate() else { throw ImageError(.unwritable, reason: "libavif could not make an encoder") }
        defer { avifEncoderDestroy(encoder) }
        encoder.pointee.maxThreads = Int32(max(1, System.coreCount))
        encoder.pointee.speed = Int32(min(max(speed, 0), 10))
        let quantizer = lossless ? Int32(AVIF_QUANTIZER_LOSSLESS) : Int32(((100 - min(max(quality, 1), 100)) * 63 + 50) / 100)
        encoder.pointee.minQuantizer = quantizer
        encoder.pointee.maxQuantizer = quantizer
        // Alpha stays lossless (libavif's default and libheif's), whatever the color quality.
        encoder.pointee.minQuantizerAlpha = Int32(AVIF_QUANTIZER_LOSSLESS)
        encoder.pointee.maxQuantizerAlpha = Int32(AVIF_QUANTIZER_LOSSLESS)
        var output = avifRWData()
        defer { avifRWDataFree(&output) }
        result = avifEncoderWrite(encoder, avif, &output)
        guard result == AVIF_RESULT_OK else { throw failure("encode the picture", result) }
        return Array(UnsafeBufferPointer(start: output.data, count: output.size))
    }

    private static func failure(_ what: String, _ result: avifResult) -> ImageError {
        ImageError(.unwritable, reason: "libavif could not \(what): \(String(cString: avifResultToString(result)))")
    }
}
