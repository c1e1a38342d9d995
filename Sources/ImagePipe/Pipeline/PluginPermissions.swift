#if canImport(Glibc)
import Glibc
#endif

/// Whether a plugin library is safe to load: loading runs its code with the user's rights, so,
/// as ssh refuses a private key others can read, ImagePipe refuses a plugin that anyone but its
/// owner could have written — the file, or any directory above it (a directory writable by
/// others lets them replace the file). A sticky directory such as /tmp is fine: there only a
/// file's owner may replace it.
enum PluginPermissions {
    /// Why the plugin at `path` must not be loaded, or nil when it may.
    static func problem(with path: String) -> String? {
        guard let resolved = ImageFile.realPath(path) else { return nil } // dlopen says why it is missing
        var status = stat()
        guard stat(resolved, &status) == 0 else { return nil }
        if status.st_mode & (S_IWGRP | S_IWOTH) != 0 {
            return "refused: it is writable by group or others (\(mode(status.st_mode))), so anyone could put code in it; chmod go-w '\(resolved)'"
        }
        // The directories above the file itself, and above the name given when it is a link.
        var directories: [String] = []
        let linkDirectory = ImageFile.realPath(PathBytes.directoryPrefix(path).isEmpty ? "." : PathBytes.directoryPrefix(path))
        for canonical in [resolved, linkDirectory.map { $0 + "/x" }].compactMap({ $0 }) {
            let components = PathBytes.components(canonical).dropLast()
            for count in 0...components.count {
                let directory = "/" + components.prefix(count).joined(separator: "/")
                if !directories.contains(where: { PathBytes.same($0, directory) }) { directories.append(directory) }
            }
        }
        for directory in directories {
            guard stat(directory, &status) == 0 else { continue }
            if status.st_mode & (S_IWGRP | S_IWOTH) != 0, status.st_mode & S_ISVTX == 0 {
                return "refused: its directory '\(directory)' is writable by group or others (\(mode(status.st_mode))), so anyone could replace it; chmod go-w '\(directory)'"
            }
        }
        return nil
    }

    /// `0o777`-style octal permissions.
    private static func mode(_ mode: mode_t) -> String { "mode " + String(mode & 0o7777, radix: 8) }
}
