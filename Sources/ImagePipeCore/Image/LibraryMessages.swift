import CGdkPixbuf
#if canImport(Glibc)
import Glibc
#endif

/// Warnings and criticals that gdk-pixbuf's loaders print on damaged data ("Could not
/// instantiate WebPAnimDecoder", "assertion 'width > 0' failed"), on top of the error ImagePipe
/// reports for the file. A command promising one line per bad file routes them away; with
/// IMAGEPIPE_DEBUG set they are printed as GLib prints them.
package enum LibraryMessages {
    /// Drops GLib's warnings and criticals from here on (unless IMAGEPIPE_DEBUG is set).
    package static func silence() {
        guard getenv("IMAGEPIPE_DEBUG") == nil else { return }
        let drop: GLogFunc = { _, _, _, _ in }
        g_log_set_default_handler(drop, nil)
    }
}
