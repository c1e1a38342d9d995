import CGdkPixbuf

/// A file format ImagePipe can write. docs/formats.md lists the library behind each.
public enum ImageFormat: String, CaseIterable, Sendable {
    case png, jpeg, webp, avif, jxl, gif, tiff, bmp, ico

    /// The format an output file name asks for, from its extension.
    public init?(fileName: String) {
        let name = Array(PathBytes.lastComponent(fileName).utf8)
        guard let dot = name.lastIndex(of: UInt8(ascii: ".")) else { return nil }
        self.init(name: String(decoding: name[(dot + 1)...], as: UTF8.self))
    }

    /// A format from its name or a usual extension (`jpg`, `tif`), in any case.
    public init?(name: String) {
        switch name.lowercased() {
        case "png": self = .png
        case "jpg", "jpeg", "jpe": self = .jpeg
        case "tif", "tiff": self = .tiff
        case "bmp": self = .bmp
        case "ico": self = .ico
        case "webp": self = .webp
        case "avif": self = .avif
        case "jxl": self = .jxl
        case "gif": self = .gif
        default: return nil
        }
    }

    /// The same format's read identity.
    var sourceFormat: SourceFormat { SourceFormat(rawValue: rawValue)! }

    /// The extension a file of this format is usually given (`jpg`, as cameras and sharp write it).
    public var fileExtension: String {
        switch self {
        case .jpeg: return "jpg"
        case .tiff: return "tif"
        default: return rawValue
        }
    }

    /// Whether this system can write the format: ImagePipe's own encoders (TIFF's is libtiff,
    /// linked) always; ICO through gdk-pixbuf's saver, when installed (a later gdk-pixbuf may
    /// build it without).
    public var isAvailable: Bool {
        switch self {
        case .ico: ImageFormat.writableNames.contains(rawValue)
        default: true
        }
    }

    /// Whether the format holds an alpha channel (GIF: one level of transparency).
    public var supportsAlpha: Bool { self != .jpeg }

    /// Whether an ICC profile can be embedded (otherwise the pixels are written in sRGB).
    public var embedsProfile: Bool { [.png, .jpeg, .webp, .avif, .jxl, .tiff].contains(self) }
    /// Whether EXIF and XMP can be embedded.
    public var embedsMetadata: Bool { [.png, .jpeg, .webp, .avif, .jxl].contains(self) }

    /// The formats this system writes, for messages: "png, jpeg, webp, …".
    public static var writableList: String { allCases.filter(\.isAvailable).map(\.rawValue).joined(separator: ", ") }

    /// The file extensions of every format the installed loaders can read, lower-case.
    public static let readableExtensions: Set<String> = readableExtensions(of: Set(SourceFormat.allCases))

    /// The file extensions, lower-case, of `formats`: what a directory given as input is searched
    /// for (files of formats not allowed are passed over). The vetted formats' are ImagePipe's
    /// own, since its codecs read them; the opt-in formats' are their installed loaders'.
    public static func readableExtensions(of formats: Set<SourceFormat>) -> Set<String> {
        var extensions = Set(formats.intersection(SourceFormat.vetted).flatMap(\.fileExtensions))
        let optIn = formats.subtracting(SourceFormat.vetted)
        guard !optIn.isEmpty else { return extensions }
        let list = gdk_pixbuf_get_formats()
        var node = list
        while let current = node {
            if let data = current.pointee.data, let loader = gdk_pixbuf_format_get_name(OpaquePointer(data)) {
                let name = String(cString: loader)
                g_free(loader)
                if !optIn.contains(where: { $0.loaderName == name }) {
                    node = current.pointee.next
                    continue
                }
            }
            if let data = current.pointee.data, let names = gdk_pixbuf_format_get_extensions(OpaquePointer(data)) {
                var index = 0
                while let name = names[index] {
                    extensions.insert(String(cString: name).lowercased())
                    index += 1
                }
                g_strfreev(names)
            }
            node = current.pointee.next
        }
        g_slist_free(list)
        return extensions
    }

    /// The names of the formats the installed loaders can write, read once.
    static let writableNames: Set<String> = {
        var names = Set<String>()
        let list = gdk_pixbuf_get_formats()
        var node = list
        while let current = node {
            if let data = current.pointee.data, case let format = OpaquePointer(data),
               gdk_pixbuf_format_is_writable(format) != 0,
               let name = gdk_pixbuf_format_get_name(format) {
                names.insert(String(cString: name))
                g_free(name)
            }
            node = current.pointee.next
        }
        g_slist_free(list)
        return names
    }()
}
