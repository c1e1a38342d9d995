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
        let avif = try picture(image, format: pixelFormat(quality: quality, chroma: chroma, lossless: lossless), lossless: lossless,
                               metadata: metadata, alpha: image.hasAlpha)
        defer { avifImageDestroy(avif) }
        let encoder = try encoder(quality: quality, speed: speed, lossless: lossless)
        defer { avifEncoderDestroy(encoder) }
        var output = avifRWData()
        defer { avifRWDataFree(&output) }
        let result = avifEncoderWrite(encoder, avif, &output)
        guard result == AVIF_RESULT_OK else { throw failure("encode the picture", result) }
        return Array(UnsafeBufferPointer(start: output.data, count: output.size))
    }

    static func pixelFormat(quality: Int, chroma: ChromaSubsampling, lossless: Bool) -> avifPixelFormat {
        switch lossless ? .c444 : chroma.resolved(quality: quality) {
        case .c444: AVIF_PIXEL_FORMAT_YUV444
        case .c422: AVIF_PIXEL_FORMAT_YUV422
        default: AVIF_PIXEL_FORMAT_YUV420
        }
    }

    /// libavif's YUV picture of `image`, with an alpha plane when `alpha` says (opaque where the
    /// image has none); the caller destroys it.
    static func picture(_ image: Image, format: avifPixelFormat, lossless: Bool, metadata: OutputMetadata, alpha: Bool) throws -> UnsafeMutablePointer<avifImage> {
        try openLibrary()
        guard let avif = avifImageCreate(UInt32(image.width), UInt32(image.height), 8, format) else {
            throw ImageError(.unwritable, reason: "libavif could not make a \(image.size) picture")
        }
        avif.pointee.yuvRange = AVIF_RANGE_FULL
        // Lossless AV1 keeps RGB as it is (the identity matrix); lossy converts with BT.601, as
        // libheif does. Without a profile, the CICP fields say sRGB.
        avif.pointee.matrixCoefficients = UInt16(lossless ? AVIF_MATRIX_COEFFICIENTS_IDENTITY : AVIF_MATRIX_COEFFICIENTS_BT601)
        if metadata.icc == nil {
            avif.pointee.colorPrimaries = UInt16(AVIF_COLOR_PRIMARIES_BT709)
            avif.pointee.transferCharacteristics = UInt16(AVIF_TRANSFER_CHARACTERISTICS_SRGB)
        }
        if let icc = metadata.icc { icc.withUnsafeBufferPointer { avifImageSetProfileICC(avif, $0.baseAddress, $0.count) } }
        if let exif = metadata.describing(image.size).exif { exif.withUnsafeBufferPointer { avifImageSetMetadataExif(avif, $0.baseAddress, $0.count) } }
        if let xmp = metadata.xmp { xmp.withUnsafeBufferPointer { avifImageSetMetadataXMP(avif, $0.baseAddress, $0.count) } }
        // An alpha plane made here is filled from the RGBA rows, or opaque from RGB ones.
        if alpha { avifImageAllocatePlanes(avif, avifPlanesFlags(AVIF_PLANES_ALL.rawValue)) }
        var rgb = avifRGBImage()
        avifRGBImageSetDefaults(&rgb, avif)
        rgb.depth = 8
        rgb.format = image.hasAlpha ? AVIF_RGB_FORMAT_RGBA : AVIF_RGB_FORMAT_RGB
        rgb.pixels = UnsafeMutablePointer(mutating: image.pixels) // only read
        rgb.rowBytes = UInt32(image.rowStride)
        let result = avifImageRGBToYUV(avif, &rgb)
        guard result == AVIF_RESULT_OK else {
            avifImageDestroy(avif)
            throw failure("convert the picture to YUV", result)
        }
        return avif
    }

    /// libavif's encoder at `save`'s settings; the caller destroys it.
    static func encoder(quality: Int, speed: Int, lossless: Bool) throws -> UnsafeMutablePointer<avifEncoder> {
        try openLibrary()
        guard let encoder = avifEncoderCreate() else { throw ImageError(.unwritable, reason: "libavif could not make an encoder") }
        encoder.pointee.maxThreads = Int32(max(1, System.coreCount))
        encoder.pointee.speed = Int32(min(max(speed, 0), 10))
        let quantizer = lossless ? Int32(AVIF_QUANTIZER_LOSSLESS) : Int32(((100 - min(max(quality, 1), 100)) * 63 + 50) / 100)
        encoder.pointee.minQuantizer = quantizer
        encoder.pointee.maxQuantizer = quantizer
        // Alpha stays lossless (libavif's default and libheif's), whatever the color quality.
        encoder.pointee.minQuantizerAlpha = Int32(AVIF_QUANTIZER_LOSSLESS)
        encoder.pointee.maxQuantizerAlpha = Int32(AVIF_QUANTIZER_LOSSLESS)
        return encoder
    }

    /// libavif is opened on first use (CLibraryLoader says why); every path into it starts here.
    private static func openLibrary() throws {
        if let reason = imagepipe_open_libavif() {
            throw ImageError(.unsupported, reason: "AVIF output needs libavif, which cannot be opened: \(String(cString: reason))")
        }
    }

    static func failure(_ what: String, _ result: avifResult) -> ImageError {
        ImageError(.unwritable, reason: "libavif could not \(what): \(String(cString: avifResultToString(result)))")
    }
}
