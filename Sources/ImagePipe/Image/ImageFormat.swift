import CGdkPixbuf

/// A file format ImagePipe can write, with the gdk-pixbuf saver behind it.
public enum ImageFormat: String, CaseIterable, Sendable {
    case png, jpeg, tiff, bmp, ico, webp

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
        default: return nil
        }
    }

    /// The extension a file of this format is usually given (`jpg`, as cameras and sharp write it).
    public var fileExtension: String {
        switch self {
        case .jpeg: return "jpg"
        case .tiff: return "tif"
        default: return rawValue
        }
    }

    /// Whether the installed gdk-pixbuf has a saver for this format (WebP needs a loader package).
    public var isAvailable: Bool { ImageFormat.writableNames.contains(rawValue) }

    public var supportsAlpha: Bool { self != .jpeg }

    /// The file extensions of every format the installed loaders can read, lower-case.
    public static let readableExtensions: Set<String> = readableExtensions(of: Set(SourceFormat.allCases))

    /// The file extensions, lower-case, of the installed loaders for `formats`: what a directory
    /// given as input is searched for (files of formats not allowed are passed over).
    public static func readableExtensions(of formats: Set<SourceFormat>) -> Set<String> {
        var extensions = Set<String>()
        let list = gdk_pixbuf_get_formats()
        var node = list
        while let current = node {
            if let data = current.pointee.data, let loader = gdk_pixbuf_format_get_name(OpaquePointer(data)) {
                let name = String(cString: loader)
                g_free(loader)
                if !formats.contains(where: { $0.loaderName == name }) {
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
