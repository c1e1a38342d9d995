/// ICO and CUR (opt-in): the largest entry, found by ImagePipe (`ICODirectory`), a PNG one read
/// by libspng, a bitmap one by gdk-pixbuf's loader as an ICO of that entry alone; written by
/// gdk-pixbuf's saver.
struct ICOCodec: Codec {
    var format: ImageFormat { .ico }
    var capabilities: CodecCapabilities {
        CodecCapabilities(reader: "its largest entry: libspng (PNG), or gdk-pixbuf in a separate process (bitmap)", writer: "gdk-pixbuf",
                          fileExtensions: ["ico", "cur"], mediaType: "image/vnd.microsoft.icon", wholeFile: true)
    }

    /// The entry that is read.
    func header(of bytes: [UInt8], options: LoadOptions, path: String?) throws -> ImageHeader { try ICODirectory(bytes, path: path).header }

    func decode(_ bytes: [UInt8], options: LoadOptions, path: String?) throws -> Image {
        switch try ICODirectory(bytes, path: path).chosen {
        case let .png(png): try PNGDecoder.decode(.bytes(png), orientation: 1, options: options, path: path)
        case let .bitmap(single): try GdkPixbufCodec.decode(single, loader: format, options: options, path: path)
        }
    }

    func encode(_ image: Image, options: SaveOptions, metadata: OutputMetadata, cancellation: Cancellation?) throws -> [UInt8] {
        try image.encodedByGdkPixbuf(type: format.loaderName, settings: [])
    }

    var longestSide: (pixels: Int, by: String)? { (256, "the format's limit") }

    /// gdk-pixbuf's saver, which a later gdk-pixbuf may be built without.
    var writerIsInstalled: Bool { GdkPixbufFormats.writableNames.contains(format.loaderName) }

    /// gdk-pixbuf's saver would write a larger picture into a file no reader takes.
    func checkWritable(_ size: Size) throws(ImageError) {
        if size.width > 256 || size.height > 256 {
            throw ImageError(.unwritable, reason: "ICO holds at most 256x256 pixels; this picture is \(size)")
        }
    }
}
