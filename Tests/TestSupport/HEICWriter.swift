import CHeif
import ImagePipe

/// Writes HEIC files for the tests of HEIC reading, through libheif's HEVC encoder (x265):
/// ImagePipe reads HEIC but does not write it.
public enum HEICWriter {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// `image` (RGB) as a HEIC file at `path`, at libheif quality `quality`; an `orientation`
    /// (EXIF's numbers, 1–8) other than 1 is written as the container's `irot`/`imir` boxes, the
    /// pixels stored as given, as a phone stores a turned photo.
    public static func write(_ image: Image, to path: String, quality: Int = 90, orientation: Int = 1) throws {
        func check(_ error: heif_error) throws {
            guard error.code != heif_error_Ok else { return }
            throw Failure(description: error.message.map { String(cString: $0) } ?? "libheif error \(error.code.rawValue)")
        }
        guard let context = heif_context_alloc() else { throw Failure(description: "no libheif context") }
        defer { heif_context_free(context) }
        var encoder: OpaquePointer?
        try check(heif_context_get_encoder_for_format(context, heif_compression_HEVC, &encoder))
        defer { heif_encoder_release(encoder) }
        try check(heif_encoder_set_lossy_quality(encoder, Int32(quality)))
        var picture: OpaquePointer?
        try check(heif_image_create(Int32(image.width), Int32(image.height), heif_colorspace_RGB, heif_chroma_interleaved_RGB, &picture))
        defer { heif_image_release(picture) }
        try check(heif_image_add_plane(picture, heif_channel_interleaved, Int32(image.width), Int32(image.height), 8))
        var stride: Int32 = 0
        let plane = heif_image_get_plane(picture, heif_channel_interleaved, &stride)!
        for y in 0..<image.height {
            let row = image.row(y)
            for i in 0..<image.width * 3 { plane[y * Int(stride) + i] = row[i] }
        }
        let options = heif_encoding_options_alloc()!
        defer { heif_encoding_options_free(options) }
        options.pointee.image_orientation = heif_orientation(rawValue: UInt32(orientation))
        try check(heif_context_encode_image(context, picture, encoder, options, nil))
        try check(heif_context_write_to_file(context, path))
    }
}
