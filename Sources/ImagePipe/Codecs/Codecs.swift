import CAvif
import CHeif

/// The registry of codecs: one conformance to `Codec` per `ImageFormat`, each in its folder
/// under `Codecs/`. Loading, header reading, `info`, frames, encoding and streaming look a format
/// up here rather than switching on it; adding a format is its folder and one line below.
enum Codecs {
    /// Every format ImagePipe recognizes, vetted ones first (docs/formats.md's order).
    static let registered: [any Codec] = [
        JPEGCodec(), PNGCodec(), WebPCodec(), GIFCodec(), TIFFCodec(), BMPCodec(), AVIFCodec(), JXLCodec(), HEIFCodec(),
    ] + [ImageFormat.svg, .xpm, .xbm, .tga, .icns, .ani, .qtif, .pnm].map(GdkPixbufCodec.init) + [ICOCodec()]

    private static let byFormat: [ImageFormat: any Codec] = Dictionary(uniqueKeysWithValues: registered.map { ($0.format, $0) })

    /// The codec of `format`.
    static func of(_ format: ImageFormat) -> any Codec { byFormat[format]! }

    /// The codecs' libraries opened when a picture first needs them (libheif's, libavif's), by
    /// soname.
    static let librariesOpenedOnFirstUse = [IMAGEPIPE_LIBHEIF, IMAGEPIPE_LIBAVIF]

    /// The header of a picture held in `bytes`, by its format's codec, refusing formats `options`
    /// does not allow.
    static func header(of bytes: [UInt8], options: LoadOptions, path: String?) throws -> ImageHeader {
        if let limit = options.maxInputBytes, bytes.count > limit { throw ImageError.tooManyBytes(limit: limit, path: path) }
        let format = try ImageFormat.identify(bytes, allowed: options.allowedFormats, path: path)
        return try of(format).header(of: bytes, options: options, path: path)
    }
}
