#if canImport(Glibc)
import Glibc
#endif

/// A plugin library opened for loading, after the checks of `PluginPermissions`.
///
/// The library is loaded through its descriptor (`/proc/self/fd/N`), not by name again, so the
/// file that passed the checks is the file whose code runs: nothing can swap it in between.
/// One consequence: `$ORIGIN` in the plugin's run path means `/proc/self/fd`, so a plugin must
/// find the libraries it needs by absolute run paths or the system's search path.
package struct PluginFile: Sendable {
    /// The path as given, for messages.
    package let path: String
    /// The open file, read-only and closed on exec; `close()` closes it.
    package let descriptor: Int32
    package let identity: PluginIdentity

    /// Opens the plugin at `path`, refusing it when anyone but the user or root could have
    /// written it or a directory above it.
    package init(opening path: String) throws(PluginLoadError) {
        // A name without a slash would be searched for in the system's library path by dlopen;
        // here it is a file in the current directory, as everywhere else in the command.
        self.path = path
        let (descriptor, status) = try PluginPermissions.open(path.utf8.contains(UInt8(ascii: "/")) ? path : "./" + path)
        self.descriptor = descriptor
        identity = PluginIdentity(path: path, status: status)
    }

    /// A plugin file already opened and checked by another process, which passed `descriptor`
    /// down (the plugin scanner); the file itself is checked again.
    package init(inheriting descriptor: Int32, path: String) throws(PluginLoadError) {
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            throw PluginLoadError(path: path, reason: "cannot be loaded: \(String(cString: strerror(errno)))")
        }
        if let problem = PluginPermissions.problem(with: status, name: path) {
            throw PluginLoadError(path: path, reason: problem)
        }
        self.path = path
        self.descriptor = descriptor
        identity = PluginIdentity(path: path, status: status)
    }

    /// Closes the descriptor; a library loaded from it stays loaded.
    package func close() { _ = Glibc.close(descriptor) }
}
