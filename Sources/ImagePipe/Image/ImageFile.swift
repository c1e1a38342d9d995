import CGdkPixbuf
#if canImport(Glibc)
import Glibc
#endif

/// Plain file input and output for images, without Foundation: chunked reads and writes that
/// land under their final name only when complete.
public enum ImageFile {
    /// Calls `body` with successive chunks of the file until it returns false or the file ends.
    static func readChunks(path: String, chunkSize: Int = 1 << 16, _ body: (UnsafeRawBufferPointer) throws -> Bool) throws {
        guard let file = fopen(path, "rb") else { throw readError(path: path) }
        defer { fclose(file) }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunkSize, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let count = fread(buffer.baseAddress, 1, chunkSize, file)
            if count > 0, try !body(UnsafeRawBufferPointer(rebasing: buffer[0..<count])) { return }
            if count < chunkSize {
                if ferror(file) != 0 { throw ImageError(.unreadable, path: path, reason: systemMessage()) }
                return
            }
        }
    }

    /// The first `count` bytes of a file (fewer if it is shorter).
    static func prefix(path: String, count: Int) throws -> [UInt8] {
        var bytes: [UInt8] = []
        try readChunks(path: path, chunkSize: count) { chunk in
            bytes.append(contentsOf: chunk)
            return false
        }
        return bytes
    }

    /// The best reason why `path` cannot be read as an image.
    static func readError(path: String) -> ImageError {
        var status = stat()
        if stat(path, &status) != 0 { return ImageError(.unreadable, path: path, reason: systemMessage()) }
        if (status.st_mode & S_IFMT) == S_IFDIR { return ImageError(.unreadable, path: path, reason: "is a directory") }
        if access(path, R_OK) != 0 { return ImageError(.unreadable, path: path, reason: systemMessage()) }
        if status.st_size == 0 { return ImageError(.corrupt, path: path, reason: "the file is empty") }
        if let format = (try? prefix(path: path, count: 16)).flatMap(sniffFormat) {
            return ImageError(.corrupt, path: path, reason: "starts like \(format) but its header cannot be read")
        }
        return ImageError(.unsupported, path: path, reason: "not an image format gdk-pixbuf can read")
    }

    /// The temporary files being written right now, so that an interrupted run can remove them.
    private static let temporaryFiles = Locked<Set<String>>([])

    /// Removes the temporary files of writes still in progress; for a process about to exit.
    public static func removeTemporaryFiles() {
        temporaryFiles.withLock { files in
            for file in files { unlink(file) }
            files.removeAll()
        }
    }

    /// Writes `bytes` to `path` through a temporary file in the same directory, renamed into place
    /// only when every byte is on disk: a reader never sees a partial file under `path`.
    public static func writeAtomically(_ bytes: UnsafeRawBufferPointer, to path: String) throws {
        let directory = path.lastIndex(of: "/").map { String(path[...$0]) } ?? ""
        let name = path.lastIndex(of: "/").map { String(path[path.index(after: $0)...]) } ?? path
        var template = Array("\(directory).\(name).imagepipe-XXXXXX".utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard descriptor >= 0 else { throw ImageError(.unwritable, path: path, reason: systemMessage()) }
        let temporary = String(cString: template.withUnsafeBufferPointer { $0.baseAddress! })
        temporaryFiles.withLock { _ = $0.insert(temporary) }
        defer { temporaryFiles.withLock { _ = $0.remove(temporary) } }
        var failure: String?
        var written = 0
        while written < bytes.count, failure == nil {
            let result = write(descriptor, bytes.baseAddress! + written, bytes.count - written)
            if result < 0 {
                if errno != EINTR { failure = systemMessage() }
            } else {
                written += result
            }
        }
        // mkstemp makes the file 0600; give it the permissions a plain new file would have.
        let mask = umask(0)
        umask(mask)
        if failure == nil, fchmod(descriptor, 0o666 & ~mask) != 0 { failure = systemMessage() }
        if failure == nil, fsync(descriptor) != 0 { failure = systemMessage() }
        if close(descriptor) != 0, failure == nil { failure = systemMessage() }
        if failure == nil, rename(temporary, path) != 0 { failure = systemMessage() }
        if let failure {
            unlink(temporary)
            throw ImageError(.unwritable, path: path, reason: failure)
        }
    }

    /// The format a file's first bytes announce, for telling a damaged picture from a non-picture.
    static func sniffFormat(_ bytes: [UInt8]) -> String? {
        let signatures: [(String, [UInt8])] = [
            ("a JPEG", [0xFF, 0xD8, 0xFF]), ("a PNG", [0x89, 0x50, 0x4E, 0x47]), ("a GIF", Array("GIF8".utf8)),
            ("a TIFF", [0x49, 0x49, 0x2A, 0x00]), ("a TIFF", [0x4D, 0x4D, 0x00, 0x2A]), ("a BMP", Array("BM".utf8)),
            ("a WebP", Array("RIFF".utf8)),
        ]
        return signatures.first { bytes.starts(with: $0.1) }?.0
    }

    /// Makes the directories above `path` that are missing, refusing any that would resolve
    /// outside `root` (through `..` or a symbolic link).
    public static func createParentDirectories(of path: String, within root: String) throws {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false).dropLast()
        var current = path.hasPrefix("/") ? "" : "."
        for part in parts where !part.isEmpty && part != "." {
            current += "/" + part
            if mkdir(current, 0o777) != 0, errno != EEXIST {
                throw ImageError(.unwritable, path: path, reason: "cannot make directory '\(current)': \(systemMessage())")
            }
        }
        guard let realRoot = realPath(root), let realParent = realPath(current) else {
            throw ImageError(.unwritable, path: path, reason: systemMessage())
        }
        guard realParent == realRoot || realParent.hasPrefix(realRoot.hasSuffix("/") ? realRoot : realRoot + "/") else {
            throw ImageError(.unwritable, path: path, reason: "its directory resolves to '\(realParent)', outside the output directory '\(root)'")
        }
    }

    /// The canonical absolute path, symbolic links resolved; nil if it does not exist.
    public static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    static func systemMessage() -> String { String(cString: strerror(errno)) }
}
