#if canImport(Glibc)
import Glibc
#endif

/// Whether a plugin library is safe to load: loading runs its code with the user's rights, so,
/// as ssh refuses a private key others can read, ImagePipe refuses a plugin that anyone but the
/// user or root could have written — the file, or any directory above it up to `/`.
///
/// A sticky directory such as /tmp is no exception: there another user may not replace the
/// user's file, but may plant a file of their own under any name not yet taken (a plugin in a
/// folder on IMAGEPIPE_PLUGIN_PATH is loaded by name), and may replace or remove a whole folder
/// of theirs above the plugin.
enum PluginPermissions {
    /// Opens the plugin at `path` read-only, once its directories and the opened file itself
    /// have passed the checks; the caller loads that descriptor, so the file checked is the file
    /// loaded. Throws the reason it must not be loaded.
    static func open(_ path: String) throws(PluginLoadError) -> (descriptor: Int32, status: stat) {
        func refuse(_ reason: String) -> PluginLoadError { PluginLoadError(path: path, reason: reason) }
        guard let resolved = ImageFile.realPath(path) else {
            throw refuse("cannot be loaded: \(String(cString: strerror(errno)))")
        }
        // The directories above the file itself, and above the name given when it is a link
        // (whoever can write there can point the link elsewhere). Outermost first, so the
        // message names the folder to fix first.
        var directories: [String] = []
        let linkDirectory = ImageFile.realPath(PathBytes.directoryPrefix(path).isEmpty ? "." : PathBytes.directoryPrefix(path))
        for canonical in [resolved, linkDirectory.map { $0 + "/x" }].compactMap({ $0 }) {
            let components = PathBytes.components(canonical).dropLast()
            for count in 0...components.count {
                let directory = "/" + components.prefix(count).joined(separator: "/")
                if !directories.contains(where: { PathBytes.same($0, directory) }) { directories.append(directory) }
            }
        }
        var status = stat()
        for directory in directories {
            guard stat(directory, &status) == 0 else {
                throw refuse("cannot be loaded: cannot check its directory '\(directory)': \(String(cString: strerror(errno)))")
            }
            if let owner = foreignOwner(status) {
                throw refuse("refused: its directory '\(directory)' belongs to \(owner), not to you or root, so they could replace it")
            }
            if status.st_mode & (S_IWGRP | S_IWOTH) != 0 {
                // A shared sticky folder (/tmp) is meant to be writable by all: the advice is to
                // move the plugin, never to change such a folder's mode.
                let remedy = status.st_mode & S_ISVTX != 0
                    ? "move it to a folder you own (such as ~/.local/lib/imagepipe/plugins) and give that path, or put it in IMAGEPIPE_PLUGIN_PATH"
                    : "chmod go-w '\(directory)', or move it to a folder you own"
                throw refuse("refused: its directory '\(directory)' is writable by group or others (\(mode(status.st_mode))), so anyone could replace it; \(remedy)")
            }
        }
        // The directories are safe, so the resolved name cannot have moved; O_NOFOLLOW still
        // refuses a last component that is a link by now rather than follow it unchecked.
        let descriptor = Glibc.open(resolved, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard descriptor >= 0 else {
            throw refuse("cannot be loaded: \(String(cString: strerror(errno)))")
        }
        guard fstat(descriptor, &status) == 0 else {
            let reason = String(cString: strerror(errno))
            close(descriptor)
            throw refuse("cannot be loaded: \(reason)")
        }
        if let problem = problem(with: status, name: resolved) {
            close(descriptor)
            throw refuse(problem)
        }
        return (descriptor, status)
    }

    /// Why an opened plugin file (its `fstat`) must not be loaded, or nil when it may.
    static func problem(with status: stat, name: String) -> String? {
        if status.st_mode & S_IFMT != S_IFREG {
            return "cannot be loaded: it is not a regular file"
        }
        if let owner = foreignOwner(status) {
            return "refused: it belongs to \(owner), not to you or root, so they could put code in it"
        }
        if status.st_mode & (S_IWGRP | S_IWOTH) != 0 {
            return "refused: it is writable by group or others (\(mode(status.st_mode))), so anyone could put code in it; chmod go-w '\(name)'"
        }
        return nil
    }

    /// The owner of a file when it is neither root nor the user running the command, as
    /// `user 65534 (nobody)`.
    private static func foreignOwner(_ status: stat) -> String? {
        let owner = status.st_uid
        guard owner != 0, owner != geteuid() else { return nil }
        guard let entry = getpwuid(owner), let name = entry.pointee.pw_name else { return "user \(owner)" }
        return "user \(owner) (\(String(cString: name)))"
    }

    /// `0o777`-style octal permissions.
    private static func mode(_ mode: mode_t) -> String { "mode " + String(mode & 0o7777, radix: 8) }
}
