import CGdkPixbuf

/// What the installed gdk-pixbuf loaders say of themselves: the extensions the opt-in formats'
/// loaders go by, and which loaders can also save (ICO's encoder is its saver).
enum GdkPixbufFormats {
    /// The file extensions, lower-case, of the installed loaders named in `loaders`.
    static func extensions(ofLoaders loaders: Set<String>) -> Set<String> {
        var extensions = Set<String>()
        let list = gdk_pixbuf_get_formats()
        var node = list
        while let current = node {
            if let data = current.pointee.data, let loader = gdk_pixbuf_format_get_name(OpaquePointer(data)) {
                let name = String(cString: loader)
                g_free(loader)
                if !loaders.contains(name) {
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

    /// The names of the installed loaders that can write, read once.
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
