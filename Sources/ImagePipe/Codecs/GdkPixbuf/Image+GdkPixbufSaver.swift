import CGdkPixbuf

extension Image {
    /// The picture as gdk-pixbuf's saver for `type` writes it, with its key/value options.
    func encodedByGdkPixbuf(type: String, settings: [(String, String)]) throws -> [UInt8] {
        var keys = settings.map { strdup($0.0) }
        var values = settings.map { strdup($0.1) }
        keys.append(nil)
        values.append(nil)
        defer {
            keys.forEach { free($0) }
            values.forEach { free($0) }
        }
        var buffer: UnsafeMutablePointer<gchar>?
        var length: gsize = 0
        try checkGError(.unwritable, path: nil) { error in
            gdk_pixbuf_save_to_bufferv(pixbuf, &buffer, &length, type, &keys, &values, error)
        }
        defer { g_free(buffer) }
        guard let buffer else { throw ImageError(.unwritable, reason: "the \(type) encoder gave no data") }
        return Array(UnsafeRawBufferPointer(start: buffer, count: Int(length)))
    }
}
