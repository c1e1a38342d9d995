import CSoup
import ImagePipe
#if canImport(Glibc)
import Glibc
#endif

/// The page the browser is opened at: a file only this user can read (0600, in a fresh 0700
/// directory under $XDG_RUNTIME_DIR, else the temporary directory) that forwards to the
/// editor's address, so the token is never in a command line. Any local user can read a
/// process's arguments in /proc/PID/cmdline, so an address with the token given to xdg-open or
/// the browser would hand it to them; a one-time address in the arguments would not either,
/// as whoever reads it first, before the browser starts, wins the token. The file is removed
/// as soon as the page is loaded, and when the editor ends.
struct EditLaunchPage: Sendable {
    let directory: String
    let path: String

    /// Writes the page forwarding to `address`.
    static func write(forwardingTo address: String) throws(StageError) -> EditLaunchPage {
        let base = getenv("XDG_RUNTIME_DIR").map { String(cString: $0) }.flatMap { Self.isPrivateDirectory($0) ? $0 : nil }
            ?? String(cString: g_get_tmp_dir())
        var template = Array("\(base)/imagepipe-edit-XXXXXX".utf8CString)
        guard template.withUnsafeMutableBufferPointer({ buffer in buffer.baseAddress.map { mkdtemp($0) != nil } ?? false }) else {
            throw StageError("cannot make a directory for the editor's launch page in \(base): \(String(cString: strerror(errno)))")
        }
        let directory = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let path = directory + "/open.html"
        let html = """
            <!DOCTYPE html>
            <meta charset="utf-8">
            <meta http-equiv="refresh" content="0;url=\(address)">
            <title>imagepipe edit</title>
            <p><a href="\(address)">Open the editor</a>

            """
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            let reason = String(cString: strerror(errno))
            rmdir(directory)
            throw StageError("cannot write the editor's launch page \(path): \(reason)")
        }
        let bytes = Array(html.utf8)
        let written = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
        close(descriptor)
        let page = EditLaunchPage(directory: directory, path: path)
        guard written == bytes.count else {
            page.remove()
            throw StageError("cannot write the editor's launch page \(path)")
        }
        return page
    }

    /// The file's address for the browser, its path percent-encoded.
    var url: String {
        let unreserved = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~/".utf8)
        return "file://" + path.utf8.map { byte in
            guard !unreserved.contains(byte) else { return String(UnicodeScalar(byte)) }
            let hex = String(byte, radix: 16, uppercase: true)
            return "%" + (hex.count == 1 ? "0" + hex : hex)
        }.joined()
    }

    /// Removes the file and its directory; nothing happens when they are gone already.
    func remove() {
        unlink(path)
        rmdir(directory)
    }

    /// A directory of this user's that no one else can enter: $XDG_RUNTIME_DIR should be one.
    private static func isPrivateDirectory(_ path: String) -> Bool {
        var status = stat()
        guard path.hasPrefix("/"), stat(path, &status) == 0 else { return false }
        return (status.st_mode & S_IFMT) == S_IFDIR && status.st_uid == getuid() && (status.st_mode & 0o077) == 0
    }
}
