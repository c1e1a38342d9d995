import CJPEGStrict

/// JPEG writing through libjpeg directly (gdk-pixbuf's saver takes only a quality and always
/// subsamples chroma 4:2:0): chroma subsampling, progressive scans, optimised Huffman tables,
/// and the ICC profile (in APP2 chunks), EXIF and XMP (APP1).
enum JPEGEncoder {
    static func encode(_ image: Image, quality: Int, chroma: ChromaSubsampling, progressive: Bool, optimizeCoding: Bool,
                       metadata: OutputMetadata) throws -> [UInt8] {
        precondition(!image.hasAlpha, "flatten before encoding JPEG")
        let subsampling: Int32 = switch chroma.resolved(quality: quality) {
        case .c422: 422
        case .c444: 444
        default: 420
        }
        var output: UnsafeMutablePointer<UInt8>?
        var length: UInt = 0
        var message = [CChar](repeating: 0, count: 256)
        let count = message.count
        func with(_ bytes: [UInt8]?, _ body: (UnsafePointer<UInt8>?, Int) -> Int32) -> Int32 {
            guard let bytes else { return body(nil, 0) }
            return bytes.withUnsafeBufferPointer { body($0.baseAddress, $0.count) }
        }
        let status = with(metadata.icc) { icc, iccSize in
            with(metadata.exif) { exif, exifSize in
                with(metadata.xmp) { xmp, xmpSize in
                    imagepipe_jpeg_encode(image.pixels, Int32(image.width), Int32(image.height), Int32(image.rowStride),
                                          Int32(min(max(quality, 1), 100)), subsampling, progressive ? 1 : 0, optimizeCoding ? 1 : 0,
                                          icc, iccSize, exif, exifSize, xmp, xmpSize, &output, &length, &message, count)
                }
            }
        }
        guard status == 0, let output else {
            let reason = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw ImageError(.unwritable, reason: "libjpeg could not encode the picture: \(reason)")
        }
        defer { imagepipe_jpeg_free(output, nil) }
        return Array(UnsafeBufferPointer(start: output, count: Int(length)))
    }
}
