/// What one picture format's codec is and can do: the registry that loading, planning and
/// `imagepipe info` ask, rather than naming formats. Each format's folder under `Codecs/` holds
/// the code; this table says what it offers.
public struct Codec: Sendable {
    public let format: SourceFormat
    /// The library that decodes the format.
    public let reader: String
    /// The library that encodes it; nil when ImagePipe does not write it.
    public let writer: String?
    /// Decodes reduced, at 1/2, 1/4 or 1/8 of the size (JPEG's DCT scaling): a plan that only
    /// shrinks decodes no more pixels than it needs (shrink-on-load).
    public let reducedDecode: Bool
    /// Hands out rows in order as it decodes them, so that a run can stream them through the
    /// stages (`RowSource`, `Pipeline+Streaming`).
    public let rowsInOrder: Bool
    /// Encodes rows in order as they come, so that a run can stream the stages' strips into it
    /// (`RowEncoding`; PNG without a palette).
    public let writesRows: Bool
    /// Can store the picture in tiles, each read on its own.
    public let tiles: Bool
    /// Decodes only from the whole file in memory (the library takes no stream, or the file must
    /// be walked to its end first, to count an animation's frames).
    public let wholeFile: Bool
    /// Holds several frames (`Codecs/Animation/`).
    public let frames: Bool
    /// The metadata it carries: `exif`, `icc`, `xmp`.
    public let metadata: [String]

    /// The codec of `format`.
    public static func of(_ format: SourceFormat) -> Codec { all.first { $0.format == format }! }

    /// Every format ImagePipe recognizes, vetted ones first.
    public static let all: [Codec] = [
        Codec(format: .jpeg, reader: "libjpeg-turbo", writer: "libjpeg-turbo", reducedDecode: true, rowsInOrder: true, writesRows: true, tiles: false,
              wholeFile: false, frames: false, metadata: ["exif", "icc", "xmp"]),
        Codec(format: .png, reader: "libspng", writer: "libdeflate and zlib",
              reducedDecode: false, rowsInOrder: true, writesRows: true, tiles: false, wholeFile: false, frames: true, metadata: ["exif", "icc", "xmp"]),
        Codec(format: .webp, reader: "libwebp", writer: "libwebp", reducedDecode: false, rowsInOrder: true, writesRows: false, tiles: false,
              wholeFile: false, frames: true, metadata: ["exif", "icc", "xmp"]),
        Codec(format: .gif, reader: "giflib", writer: "cgif with libimagequant", reducedDecode: false, rowsInOrder: false, writesRows: false, tiles: false,
              wholeFile: true, frames: true, metadata: []),
        Codec(format: .tiff, reader: "libtiff", writer: "libtiff", reducedDecode: false, rowsInOrder: true, writesRows: true, tiles: true,
              wholeFile: false, frames: false, metadata: ["icc", "xmp"]),
        Codec(format: .bmp, reader: "ImagePipe", writer: "ImagePipe", reducedDecode: false, rowsInOrder: false, writesRows: false, tiles: false,
              wholeFile: true, frames: false, metadata: ["icc"]),
        Codec(format: .avif, reader: "libheif (dav1d or libaom); sequences libavif", writer: "libavif", reducedDecode: false, rowsInOrder: false, writesRows: false, tiles: false,
              wholeFile: true, frames: true, metadata: ["exif", "icc", "xmp"]),
        Codec(format: .jxl, reader: "libjxl", writer: "libjxl", reducedDecode: false, rowsInOrder: false, writesRows: false, tiles: false,
              wholeFile: true, frames: true, metadata: ["exif", "icc", "xmp"]),
        Codec(format: .heif, reader: "libheif (libde265)", writer: nil, reducedDecode: false, rowsInOrder: false, writesRows: false, tiles: false,
              wholeFile: true, frames: false, metadata: ["exif", "icc", "xmp"]),
    ] + [SourceFormat.svg, .xpm, .xbm, .tga, .icns, .ani, .qtif, .pnm, .ico].map { format in
        // The opt-in formats: gdk-pixbuf's loaders, in a process of their own, from memory; an
        // ICO's largest entry is found by ImagePipe (`ICODirectory`), a PNG one read by libspng
        // here (PNG is a vetted format).
        Codec(format: format, reader: format == .ico ? "its largest entry: libspng (PNG), or gdk-pixbuf in a separate process (bitmap)"
                  : "gdk-pixbuf, in a separate process",
              writer: format == .ico ? "gdk-pixbuf" : nil,
              reducedDecode: false, rowsInOrder: false, writesRows: false, tiles: false, wholeFile: true, frames: false, metadata: [])
    }
}
