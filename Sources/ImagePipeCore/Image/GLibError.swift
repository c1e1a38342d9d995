import CGdkPixbuf

/// Runs a GLib call that reports failure through a `GError**`, turning that error into an
/// `ImageError`; a failure without a GError still throws.
func withGError<T>(
    _ kind: ImageError.Kind, path: String?,
    _ call: (UnsafeMutablePointer<UnsafeMutablePointer<GError>?>) -> T?
) throws -> T {
    var error: UnsafeMutablePointer<GError>?
    let result = call(&error)
    if let error {
        let message = error.pointee.message.map { String(cString: $0) } ?? "unknown error"
        let isFormatError = error.pointee.domain == gdk_pixbuf_error_quark()
            && error.pointee.code == Int32(GDK_PIXBUF_ERROR_UNKNOWN_TYPE.rawValue)
        g_error_free(error)
        throw ImageError(isFormatError ? .unsupported : kind, path: path, reason: message)
    }
    guard let result else { throw ImageError(kind, path: path, reason: "gdk-pixbuf gave no result") }
    return result
}

/// The same for calls that return a `gboolean`.
package func checkGError(
    _ kind: ImageError.Kind, path: String?,
    _ call: (UnsafeMutablePointer<UnsafeMutablePointer<GError>?>) -> gboolean
) throws {
    _ = try withGError(kind, path: path) { error -> Bool? in call(error) != 0 ? true : nil }
}
