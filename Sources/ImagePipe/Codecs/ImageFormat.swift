/// A picture format: every format ImagePipe reads, and those of them it writes. What each one
/// can do (its extensions, media type, alpha, the metadata its encoder embeds, whether it is
/// written at all) is its codec's declaration (`Codecs.of(format).capabilities`), made in the
/// codec's folder under `Codecs/`; this type is the identity, the names people give it and the
/// signatures its data starts with.
///
/// Formats are recognized from the data's first bytes before any gdk-pixbuf loader runs.
/// gdk-pixbuf picks a loader by sniffing the content, whatever the extension: an SVG named
/// `.jpg` goes to librsvg, which fetches and decodes `data:` images inside it. So ImagePipe
/// sniffs first, decides by an allowlist (`LoadOptions.allowedFormats`, as libvips blocks its
/// untrusted loaders and ImageMagick has policy.xml), and then asks gdk-pixbuf for exactly that
/// loader by name. Only the widely fuzzed formats are allowed by default (`vetted`).
public enum ImageFormat: String, CaseIterable, Comparable, Sendable {
    case jpeg, png, webp, gif, tiff, bmp, avif, heif, jxl
    case svg, xpm, xbm, tga, icns, ani, qtif, pnm, ico

    /// Allowed unless the user says otherwise: formats with well-fuzzed decoders.
    public static let vetted: Set<ImageFormat> = [.jpeg, .png, .webp, .gif, .tiff, .bmp, .avif, .heif, .jxl]

    /// The formats ImagePipe has an encoder for (their codec names a writer), in the order help
    /// and messages list them, the most asked for first. Whether this system can write one is
    /// `isWritable`; `CodecRegistryTests` holds the list to the codecs.
    public static let encodable: [ImageFormat] = [.png, .jpeg, .webp, .avif, .jxl, .gif, .tiff, .bmp, .ico]

    /// The format named by `name` (`svg`, `jpg`, `tif`, `cur`…), in any case: its own name, or
    /// an extension its codec declares.
    public init?(name: String) {
        let name = name.lowercased()
        guard let format = ImageFormat(rawValue: name) ?? ImageFormat.allCases.first(where: { $0.fileExtensions.contains(name) }) else { return nil }
        self = format
    }

    /// The format an output file name asks for, from its extension: nil when the extension names
    /// no format ImagePipe encodes (reading a format does not make a name for writing it).
    public init?(fileName: String) {
        let name = Array(PathBytes.lastComponent(fileName).utf8)
        guard let dot = name.lastIndex(of: UInt8(ascii: ".")) else { return nil }
        self.init(outputName: String(decoding: name[(dot + 1)...], as: UTF8.self))
    }

    /// The format `name` names (as `init(name:)`) when ImagePipe encodes it; nil otherwise.
    public init?(outputName name: String) {
        guard let format = ImageFormat(name: name), format.hasEncoder else { return nil }
        self = format
    }

    /// What the format's codec declares of it (`Codec.capabilities`).
    public var capabilities: CodecCapabilities { Codecs.of(self).capabilities }

    /// The file extensions the format goes by, lower-case, the usual one first (what an output
    /// file is given).
    public var fileExtensions: [String] { capabilities.fileExtensions }

    /// The extension a file of this format is usually given (`jpg`, as cameras and sharp write it).
    public var fileExtension: String { fileExtensions.first ?? rawValue }

    /// The media type (`image/jpeg`) a response or a manifest names the format by; nil for a
    /// format without one registered.
    public var mediaType: String? { capabilities.mediaType }

    /// Whether ImagePipe has an encoder for the format (it may still be missing on this system:
    /// `isWritable`).
    public var hasEncoder: Bool { capabilities.writer != nil }

    /// Whether this system can write the format: it has an encoder, and the encoder's library is
    /// installed (ICO's is gdk-pixbuf's saver, which a later gdk-pixbuf may build without).
    public var isWritable: Bool { hasEncoder && Codecs.of(self).writerIsInstalled }

    /// Whether a written file holds an alpha channel (GIF: one level of transparency); a picture
    /// with alpha is flattened onto the save's background for a format without.
    public var supportsAlpha: Bool { capabilities.writesAlpha }

    /// Whether an ICC profile can be embedded (otherwise the pixels are written in sRGB).
    public var embedsProfile: Bool { capabilities.writtenMetadata.contains("icc") }
    /// Whether EXIF and XMP can be embedded.
    public var embedsMetadata: Bool { capabilities.writtenMetadata.contains("exif") && capabilities.writtenMetadata.contains("xmp") }

    /// The formats this system writes, for messages: "png, jpeg, webp, …".
    public static var writableList: String { encodable.filter(\.isWritable).map(\.rawValue).joined(separator: ", ") }

    /// The file extensions of every format the installed loaders can read, lower-case.
    public static let readableExtensions: Set<String> = readableExtensions(of: Set(allCases))

    /// The file extensions, lower-case, of `formats`: what a directory given as input is searched
    /// for (files of formats not allowed are passed over). The vetted formats' are their codecs',
    /// since ImagePipe reads them itself; the opt-in formats' are their installed gdk-pixbuf
    /// loaders'.
    public static func readableExtensions(of formats: Set<ImageFormat>) -> Set<String> {
        let own = Set(formats.intersection(vetted).flatMap(\.fileExtensions))
        let optIn = formats.subtracting(vetted)
        guard !optIn.isEmpty else { return own }
        return own.union(GdkPixbufFormats.extensions(ofLoaders: Set(optIn.map(\.loaderName))))
    }

    /// The name people write: `JPEG`, `SVG`, `WebP`.
    public var displayName: String {
        switch self {
        case .webp: return "WebP"
        case .jxl: return "JPEG XL"
        case .icns: return "ICNS"
        case .qtif: return "QuickTime image"
        default: return rawValue.uppercased()
        }
    }

    /// "a" or "an", for "starts like an SVG".
    package var article: String { ["a", "e", "i", "o", "u", "x"].contains(displayName.prefix(1).lowercased()) || self == .svg ? "an" : "a" }

    /// The gdk-pixbuf loader's name (what `gdk_pixbuf_loader_new_with_type` takes).
    public var loaderName: String { rawValue }

    /// Whether the format can hold several frames.
    var isAnimated: Bool { Codecs.of(self).capabilities.frames }

    /// How many leading bytes `sniff` looks at.
    package static let sniffLength = 512

    /// The format the first bytes announce, or nil. TGA has no signature: it is never sniffed,
    /// only assumed when allowed and nothing else matches (`identify`).
    public static func sniff(_ bytes: some Collection<UInt8>) -> ImageFormat? {
        let b = Array(bytes.prefix(sniffLength))
        func at(_ offset: Int, _ text: String) -> Bool { b.count >= offset + text.utf8.count && b[offset...].starts(with: text.utf8) }
        func at(_ offset: Int, _ bytes: [UInt8]) -> Bool { b.count >= offset + bytes.count && b[offset...].starts(with: bytes) }
        if at(0, [0xFF, 0xD8, 0xFF]) { return .jpeg }
        if at(0, [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        if at(0, "GIF87a") || at(0, "GIF89a") { return .gif }
        if at(0, "RIFF"), at(8, "WEBP") { return .webp }
        if at(0, "RIFF"), at(8, "ACON") { return .ani }
        if at(0, [0x49, 0x49, 0x2A, 0x00]) || at(0, [0x4D, 0x4D, 0x00, 0x2A]) || at(0, [0x49, 0x49, 0x2B, 0x00]) || at(0, [0x4D, 0x4D, 0x00, 0x2B]) { return .tiff }
        if at(0, "BM") { return .bmp }
        // JPEG XL: a bare codestream, or the ISO BMFF container's signature box.
        if at(0, [0xFF, 0x0A]) || at(0, [0x00, 0x00, 0x00, 0x0C, 0x4A, 0x58, 0x4C, 0x20, 0x0D, 0x0A, 0x87, 0x0A]) { return .jxl }
        if at(4, "ftyp") {
            let brands = stride(from: 8, to: min(b.count - 3, 64), by: 4).map { String(decoding: b[$0..<$0 + 4], as: UTF8.self) }
            // AVIF by any brand that says AV1: a sequence may carry `avis` alone, or only
            // `av01` or an AV1 profile's (`MA1B`, `MA1A`) beside the generic `msf1` and `iso8`.
            if brands.contains(where: { ["avif", "avis", "av01", "MA1A", "MA1B"].contains($0) }) { return .avif }
            if brands.contains(where: { ["heic", "heix", "hevc", "hevx", "heim", "heis", "mif1", "msf1"].contains($0) }) { return .heif }
        }
        if at(0, "icns") { return .icns }
        if at(4, "idsc") || at(4, "idat") || at(4, "iicc") { return .qtif }
        // ICO and CUR: type 1 or 2 and at least one image. (An uncompressed TGA starts 00 00 02 00
        // too, but its next two bytes, the color map's length, are 0.)
        if (at(0, [0x00, 0x00, 0x01, 0x00]) || at(0, [0x00, 0x00, 0x02, 0x00])), b.count >= 6, b[4] != 0 || b[5] != 0 { return .ico }
        if b.count >= 3, b[0] == UInt8(ascii: "P"), (UInt8(ascii: "1")...UInt8(ascii: "7")).contains(b[1]), [0x20, 0x09, 0x0A, 0x0D].contains(b[2]) { return .pnm }
        if at(0, "/* XPM */") { return .xpm }
        if at(0, "#define ") { return .xbm }
        // Gzip: librsvg reads compressed SVG (svgz).
        if at(0, [0x1F, 0x8B]) { return .svg }
        // Markup: anything whose first non-blank character (after a byte-order mark) is `<` is
        // treated as SVG, so that XML with a long prologue cannot slip past a narrower test.
        var start = at(0, [0xEF, 0xBB, 0xBF]) ? 3 : 0
        while start < b.count, [0x20, 0x09, 0x0A, 0x0D].contains(b[start]) { start += 1 }
        if start < b.count, b[start] == UInt8(ascii: "<") { return .svg }
        return nil
    }

    /// The format to decode `bytes` as under `allowed`, or the error that refuses them.
    static func identify(_ bytes: some Collection<UInt8>, allowed: Set<ImageFormat>, path: String?) throws(ImageError) -> ImageFormat {
        guard !bytes.isEmpty else { throw ImageError(.corrupt, path: path, reason: path == nil ? "no bytes to decode" : "the file is empty") }
        guard let format = sniff(bytes) else {
            // Formats named by their first bytes are told apart before TGA, which has no
            // signature: a PDF or an EXR is never blamed on a TGA loader.
            if let known = unreadable(bytes) { throw ImageError(.unsupported, path: path, reason: known) }
            let tga = looksLikeTGA(bytes)
            if allowed.contains(.tga), tga { return .tga }
            let maybeTGA = tga && !allowed.contains(.tga)
            throw ImageError(.unsupported, path: path,
                             reason: "not a picture format ImagePipe recognizes by its first bytes" + (maybeTGA ? "; it may be a TGA (a format without a signature), which is read only when allowed" : ""),
                             remedy: maybeTGA ? .allowFormat(ImageFormat.tga.rawValue) : nil)
        }
        guard allowed.contains(format) else {
            throw ImageError(.unsupported, path: path, reason: "\(format.displayName): not allowed by default", remedy: .allowFormat(format.rawValue))
        }
        return format
    }

    /// What a picture format that nothing here decodes is, and why, when its first bytes tell.
    static func unreadable(_ bytes: some Collection<UInt8>) -> String? {
        let b = Array(bytes.prefix(16))
        func at(_ offset: Int, _ signature: [UInt8]) -> Bool { b.count >= offset + signature.count && b[offset...].starts(with: signature) }
        if at(0, [0x00, 0x00, 0x00, 0x0C, 0x6A, 0x50, 0x20, 0x20]) || at(0, [0xFF, 0x4F, 0xFF, 0x51]) {
            return "JPEG 2000: no decoder installed; convert it with opj_decompress (Debian libopenjp2-tools)"
        }
        if at(0, Array("8BPS".utf8)) { return "Photoshop PSD: not a format ImagePipe reads; export it as PNG or TIFF" }
        if at(0, Array("%PDF".utf8)) { return "PDF: a document, not a picture; render a page with pdftoppm (Debian poppler-utils)" }
        if at(0, [0x76, 0x2F, 0x31, 0x01]) { return "OpenEXR: no decoder installed (ImagePipe holds 8-bit pictures)" }
        if at(0, Array("SIMPLE  =".utf8)) { return "FITS: astronomical data, not a format ImagePipe reads; convert it with a FITS tool (Debian's siril, imagemagick)" }
        return nil
    }

    /// Whether the first 18 bytes could be a TGA header: a color map flag of 0 or 1, an image
    /// type TGA defines (uncompressed or run-length: color-mapped, true-color, gray), a pixel
    /// depth TGA has, and both sides above 0.
    static func looksLikeTGA(_ bytes: some Collection<UInt8>) -> Bool {
        let b = Array(bytes.prefix(18))
        guard b.count == 18 else { return false }
        let width = Int(b[12]) | Int(b[13]) << 8, height = Int(b[14]) | Int(b[15]) << 8
        return b[1] <= 1 && [1, 2, 3, 9, 10, 11].contains(b[2]) && [8, 15, 16, 24, 32].contains(b[16]) && width > 0 && height > 0
    }

    public static func < (a: ImageFormat, b: ImageFormat) -> Bool {
        allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
    }
}
