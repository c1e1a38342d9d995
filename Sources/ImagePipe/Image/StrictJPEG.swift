import CGdkPixbuf
import CJPEGStrict

/// JPEG decoding through libjpeg directly, so that corrupt data is an error: gdk-pixbuf's loader
/// ignores libjpeg's warnings and returns a garbled or grey picture for a bit-flipped or cut
/// file. Also decodes reduced in the DCT for shrink-on-load. CMYK JPEGs go to gdk-pixbuf. With
/// `failOnDamage` off it decodes what is there, which gdk-pixbuf's loader cannot do for a cut
/// progressive JPEG ("Improper call to JPEG library in state 205").
enum StrictJPEG {
    static func isJPEG(_ bytes: [UInt8]) -> Bool { bytes.count > 3 && bytes[0] == 0xFF && bytes[1] == 0xD8 && bytes[2] == 0xFF }

    /// The decoded picture of a file, streamed, or nil when gdk-pixbuf's loader should take it.
    static func decode(path: String, orientation: Int, options: LoadOptions) throws -> Image? {
        try decode(orientation: orientation, options: options, path: path) { target, maxPixels, pixels, width, height, stride, message, count in
            imagepipe_jpeg_decode_file(path, target.width, target.height, maxPixels, options.failOnDamage ? 0 : 1, pixels, width, height, stride, message, count)
        }
    }

    /// The decoded picture of bytes in memory, or nil when gdk-pixbuf's loader should take it.
    static func decode(_ bytes: [UInt8], options: LoadOptions, path: String?) throws -> Image? {
        try decode(orientation: ExifOrientation.parse(jpeg: Array(bytes.prefix(1 << 17))), options: options, path: path) {
            target, maxPixels, pixels, width, height, stride, message, count in
            bytes.withUnsafeBufferPointer { data in
                imagepipe_jpeg_decode(data.baseAddress, data.count, target.width, target.height, maxPixels, options.failOnDamage ? 0 : 1, pixels, width, height, stride, message, count)
            }
        }
    }

    private typealias Decoder = ((width: Int32, height: Int32), Int64, UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>,
                                 UnsafeMutablePointer<Int32>, UnsafeMutablePointer<Int32>, UnsafeMutablePointer<Int32>,
                                 UnsafeMutablePointer<CChar>, Int) -> Int32

    private static func decode(orientation: Int, options: LoadOptions, path: String?, _ run: Decoder) throws -> Image? {
        var target = options.atLeast ?? Size(0, 0)
        if options.applyOrientation, (5...8).contains(orientation) { target = target.transposed }
        var pixels: UnsafeMutablePointer<UInt8>?
        var width: Int32 = 0, height: Int32 = 0, stride: Int32 = 0
        var message = [CChar](repeating: 0, count: 256)
        let count = message.count
        let status = run((Int32(clamping: target.width), Int32(clamping: target.height)), Int64(options.maxPixels ?? 0),
                         &pixels, &width, &height, &stride, &message, count)
        let reason = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        switch status {
        case 0: break
        case 1: return nil
        case -2: throw ImageError(.tooLarge, path: path, reason: reason)
        default: throw ImageError(.corrupt, path: path, reason: reason.isEmpty ? "libjpeg could not decode it" : reason)
        }
        let destroy: GdkPixbufDestroyNotify = { pixels, _ in imagepipe_jpeg_free(pixels, nil) }
        guard let pixbuf = gdk_pixbuf_new_from_data(pixels, GDK_COLORSPACE_RGB, 0, 8, width, height, stride, destroy, nil) else {
            imagepipe_jpeg_free(pixels, nil)
            throw ImageError(.tooLarge, path: path, reason: "cannot hold a \(width)x\(height) picture")
        }
        guard options.applyOrientation, orientation != 1 else { return Image(adopting: pixbuf) }
        // gdk-pixbuf turns a picture by its "orientation" option, as its own loader sets it.
        gdk_pixbuf_set_option(pixbuf, "orientation", String(orientation))
        let turned = gdk_pixbuf_apply_embedded_orientation(pixbuf)!
        g_object_unref(UnsafeMutableRawPointer(pixbuf))
        return Image(adopting: turned)
    }
}
