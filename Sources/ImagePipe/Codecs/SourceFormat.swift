/// A picture format ImagePipe can decode, recognised from the data's first bytes before any
/// gdk-pixbuf loader runs.
///
/// gdk-pixbuf picks a loader by sniffing the content, whatever the extension: an SVG named
/// `.jpg` goes to librsvg, which fetches and decodes `data:` images inside it. So ImagePipe
/// sniffs first, decides by an allowlist (`LoadOptions.allowedFormats`, as libvips blocks its
/// untrusted loaders and ImageMagick has policy.xml), and then asks gdk-pixbuf for exactly that
/// loader by name. Only the widely fuzzed formats are allowed by default (`vetted`).
public enum SourceFormat: String, CaseIterable, Comparable, Sendable {
    case jpeg, png, webp, gif, tiff, bmp, avif, heif, jxl
    case svg, xpm, xbm, tga, icns, ani, qtif, pnm, ico

    /// Allowed unless the user says otherwise: formats with well-fuzzed decoders.
    public static let vetted: Set<SourceFormat> = [.jpeg, .png, .webp, .gif, .tiff, .bmp, .avif, .heif, .jxl]

    /// The format named by `name` (`svg`, `jpg`, `tif`…), in any case.
    public init?(name: String) {
        switch name.lowercased() {
        case "jpg", "jpe": self = .jpeg
        case "tif": self = .tiff
        case "heic": self = .heif
        case "pbm", "pgm", "ppm", "pam": self = .pnm
        case "cur": self = .ico
        case "svgz": self = .svg
        default:
            guard let format = SourceFormat(rawValue: name.lowercased()) else { return nil }
            self = format
        }
    }

    /// The file extensions a picture of a vetted format goes by, lower-case (the opt-in formats'
    /// are their gdk-pixbuf loaders': `ImageFormat.readableExtensions`).
    var fileExtensions: [String] {
        switch self {
        case .jpeg: ["jpg", "jpeg", "jpe", "jfif"]
        case .tiff: ["tif", "tiff"]
        case .heif: ["heic", "heif"]
        default: [rawValue]
        }
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
    public static func sniff(_ bytes: some Collection<UInt8>) -> SourceFormat? {
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
    static func identify(_ bytes: some Collection<UInt8>, allowed: Set<SourceFormat>, path: String?) throws(ImageError) -> SourceFormat {
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
                             remedy: maybeTGA ? .allowFormat(SourceFormat.tga.rawValue) : nil)
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

    public static func < (a: SourceFormat, b: SourceFormat) -> Bool {
        allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
    }
}
