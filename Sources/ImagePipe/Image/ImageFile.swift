import CGdkPixbuf
#if canImport(Glibc)
import Glibc
#endif

/// Plain file input and output for images, without Foundation: chunked reads and writes that
/// land under their final name only when complete.
public enum ImageFile {
    /// Calls `body` with successive chunks of the file until it returns false or the file ends.
    /// More than `limit` bytes is an error: a regular file is judged by its size before a byte is
    /// read, anything else (a FIFO, `/dev/zero`) as it is read.
    ///
    /// The file is opened without blocking, so a FIFO that no program writes to is an empty
    /// file rather than a wait for ever, and one whose writer stalls fails at `deadline` (the
    /// picture's `--timeout`) instead of holding its thread past it.
    public static func readChunks(path: String, chunkSize: Int = 1 << 16, limit: Int? = nil, deadline: ContinuousClock.Instant? = nil,
                                  _ body: (UnsafeRawBufferPointer) throws -> Bool) throws {
        let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)
        guard descriptor >= 0 else { throw readError(path: path) }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw ImageError(.unreadable, path: path, reason: systemMessage()) }
        switch status.st_mode & S_IFMT {
        case S_IFDIR: throw ImageError(.unreadable, path: path, reason: "is a directory")
        case S_IFREG:
            if let limit, Int(status.st_size) > limit { throw ImageError.tooManyBytes(limit: limit, path: path) }
            // A file on disk never makes a reader wait: plain blocking reads from here.
            _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) & ~O_NONBLOCK)
        default: break
        }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunkSize, alignment: 16)
        defer { buffer.deallocate() }
        var total = 0
        while true {
            let count = read(descriptor, buffer.baseAddress, chunkSize)
            if count < 0 {
                switch errno {
                case EINTR: continue
                case EAGAIN: try waitForData(descriptor, deadline: deadline, path: path)
                default: throw ImageError(.unreadable, path: path, reason: systemMessage())
                }
                continue
            }
            if count == 0 { return }
            total += count
            if let limit, total > limit { throw ImageError.tooManyBytes(limit: limit, path: path) }
            if try !body(UnsafeRawBufferPointer(rebasing: buffer[0..<count])) { return }
        }
    }

    /// Waits until a FIFO or device has data (or its writer has gone), at most until `deadline`.
    private static func waitForData(_ descriptor: Int32, deadline: ContinuousClock.Instant?, path: String) throws {
        var wanted = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        while true {
            var milliseconds: Int32 = -1
            if let deadline {
                let left = deadline - .now
                guard left > .zero else {
                    throw ImageError(.timedOut, path: path, reason: "no data came within the time limit; nothing written")
                }
                milliseconds = Int32(clamping: Int(left.inSeconds * 1000) + 1)
            }
            let ready = poll(&wanted, 1, milliseconds)
            if ready > 0 { return }
            if ready < 0, errno != EINTR { throw ImageError(.unreadable, path: path, reason: systemMessage()) }
        }
    }

    /// Refuses a regular file larger than `limit` bytes, before it is read.
    static func checkSize(path: String, limit: Int?) throws {
        var status = stat()
        if let limit, stat(path, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG, Int(status.st_size) > limit {
            throw ImageError.tooManyBytes(limit: limit, path: path)
        }
    }

    /// The first bytes of the file at `path`, enough to tell its format (`ImageFormat.sniff`);
    /// fewer, or none, when the file is shorter or cannot be read.
    public static func leadingBytes(path: String) -> [UInt8] {
        var start: [UInt8] = []
        try? readChunks(path: path, chunkSize: ImageFormat.sniffLength) { chunk in
            start += chunk
            return false
        }
        return start
    }

    /// Every byte of a file, refused past `limit`, read by `deadline`.
    public static func readAll(path: String, limit: Int?, deadline: ContinuousClock.Instant? = nil) throws -> [UInt8] {
        var bytes: [UInt8] = []
        try readChunks(path: path, limit: limit, deadline: deadline) { chunk in
            bytes.append(contentsOf: chunk)
            return true
        }
        return bytes
    }

    /// Every byte of a picture in a file that can be read only once (a FIFO, a device), within
    /// `options`' byte limit and deadline, refused as soon as its first bytes show no format
    /// `options` allows: `/dev/zero` fails at once rather than after the whole byte limit.
    public static func readPicture(path: String, options: LoadOptions) throws -> [UInt8] {
        var bytes: [UInt8] = []
        try readChunks(path: path, limit: options.maxInputBytes, deadline: options.deadline) { chunk in
            let checked = bytes.count < ImageFormat.sniffLength
            bytes.append(contentsOf: chunk)
            if checked, bytes.count >= ImageFormat.sniffLength { _ = try ImageFormat.identify(bytes, allowed: options.allowedFormats, path: path) }
            return true
        }
        return bytes
    }

    /// Whether `path` names a regular file (not a FIFO or device, which can be read only once).
    static func isRegularFile(_ path: String) -> Bool {
        var status = stat()
        return stat(path, &status) == 0 && (status.st_mode & S_IFMT) == S_IFREG
    }

    /// The best reason why `path` cannot be opened.
    static func readError(path: String) -> ImageError {
        var status = stat()
        if stat(path, &status) != 0 { return ImageError(.unreadable, path: path, reason: systemMessage()) }
        if (status.st_mode & S_IFMT) == S_IFDIR { return ImageError(.unreadable, path: path, reason: "is a directory") }
        if access(path, R_OK) != 0 { return ImageError(.unreadable, path: path, reason: systemMessage()) }
        return ImageError(.unreadable, path: path, reason: systemMessage())
    }

    /// The process's umask, read from /proc without changing it. Setting it to learn it
    /// (`umask(0)`, then back) leaves it 0 for a moment for every thread: a folder another thread
    /// made then (a batch's output folder, a ledger's) came out writable by every user.
    static let processUmask: mode_t = {
        if let status = try? readAll(path: "/proc/self/status", limit: 1 << 20),
           let line = String(decoding: status, as: UTF8.self).split(separator: "\n").first(where: { $0.hasPrefix("Umask:") }),
           let value = mode_t(line.dropFirst("Umask:".count).trimmingPrefix(while: { $0 == " " || $0 == "\t" }), radix: 8) {
            return value
        }
        let mask = umask(0o022) // a kernel without the line (before 4.7): learned once, at first use
        umask(mask)
        return mask
    }()

    /// The temporary files being written right now, so that an interrupted run can remove them.
    private static let temporaryFiles = Locked<Set<String>>([])

    /// Removes the temporary files of writes still in progress (and a pyramid's temporary
    /// folder, with what is in it); for a process about to exit.
    public static func removeTemporaryFiles() {
        temporaryFiles.withLock { files in
            for file in files where unlink(file) != 0 { PyramidTarget.removeTree(file) }
            files.removeAll()
        }
    }

    /// Notes a temporary file or folder written outside `writeAtomically` (a pyramid's), for
    /// `removeTemporaryFiles`, until `forgetTemporary`.
    static func noteTemporary(_ path: String) { temporaryFiles.withLock { _ = $0.insert(path) } }

    static func forgetTemporary(_ path: String) { temporaryFiles.withLock { _ = $0.remove(path) } }

    /// Writes `bytes` to `path` through a temporary file in the same directory, renamed into place
    /// only when every byte is on disk: a reader never sees a partial file under `path`.
    ///
    /// Only a regular file (or a new name) is replaced. An existing character device or FIFO
    /// (`/dev/null`, `/dev/stdout`, a named pipe) is opened and written through: renaming over it
    /// would replace the device node itself, which root may do. A directory, block device or
    /// socket is refused.
    ///
    /// With a `gate`, nothing is written once it is closed, and the rename happens only while it
    /// is open.
    package static func writeAtomically(_ bytes: UnsafeRawBufferPointer, to path: String, gate: OutputGate? = nil) throws {
        try writeAtomically(path: path, gate: gate) { descriptor in writeAll(bytes, to: descriptor) }
    }

    /// `writeAtomically` of bytes held in chunks, written one after the other (an animation's
    /// encoder hands its file over so, never as one copy).
    package static func writeAtomically(_ chunks: ByteChunks, to path: String, gate: OutputGate? = nil) throws {
        try writeAtomically(path: path, gate: gate) { descriptor in
            for chunk in chunks.chunks {
                if let failure = chunk.withUnsafeBytes({ writeAll($0, to: descriptor) }) { return failure }
            }
            return nil
        }
    }

    /// The file's content comes from `write`, given an open descriptor; it answers the system's
    /// reason for a failure, or nil.
    private static func writeAtomically(path: String, gate: OutputGate?, write: (Int32) -> String?) throws {
        try writeAtomically(to: path, gate: gate) { descriptor in
            if let failure = write(descriptor) { throw ImageError(.unwritable, path: path, reason: failure) }
        }
    }

    /// `writeAtomically` of a file `write` makes as it goes, given the open temporary file (or
    /// the character device or FIFO written through): an encoder writing as it encodes. Whatever
    /// `write` throws, the temporary file is removed and nothing lands at `path`.
    static func writeAtomically(to path: String, gate: OutputGate?, write: (Int32) throws -> Void) throws {
        try gate?.whileOpen(path: path) {}
        var status = stat()
        if stat(path, &status) == 0 {
            switch status.st_mode & S_IFMT {
            case S_IFREG: break
            case S_IFCHR, S_IFIFO: return try writeThrough(to: path, write: write)
            default: throw ImageError(.unwritable, path: path, reason: "\(kindDescription(status.st_mode)); only a file, a character device or a FIFO can be written")
            }
        }
        let directory = PathBytes.directoryPrefix(path)
        let name = PathBytes.lastComponent(path)
        var template = Array("\(directory).\(name).imagepipe-XXXXXX".utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard descriptor >= 0 else { throw ImageError(.unwritable, path: path, reason: systemMessage()) }
        let temporary = String(cString: template.withUnsafeBufferPointer { $0.baseAddress! })
        temporaryFiles.withLock { _ = $0.insert(temporary) }
        defer { temporaryFiles.withLock { _ = $0.remove(temporary) } }
        do {
            try write(descriptor)
        } catch {
            close(descriptor)
            unlink(temporary)
            throw error
        }
        var failure: String?
        // No fsync: the rename makes the file whole or absent to every process, whatever kills
        // this one; a flush to the disk would add a disk's latency to every output (75 MB of
        // TIFF: a third more time) for the one failure it guards, the machine's power, which
        // libvips, ImageMagick and sharp leave to the file system too.
        // mkstemp makes the file 0600; give it the permissions a plain new file would have.
        if fchmod(descriptor, 0o666 & ~processUmask) != 0 { failure = systemMessage() }
        if close(descriptor) != 0, failure == nil { failure = systemMessage() }
        if failure == nil {
            do {
                try (gate ?? OutputGate()).whileOpen(path: path) {
                    if rename(temporary, path) != 0 { failure = systemMessage() } else { gate?.recordLanded(path) }
                }
            } catch {
                unlink(temporary)
                throw error
            }
        }
        if let failure {
            unlink(temporary)
            throw ImageError(.unwritable, path: path, reason: failure)
        }
    }

    /// Writes every byte to an open descriptor; the system's reason on failure.
    static func writeAll(_ bytes: UnsafeRawBufferPointer, to descriptor: Int32) -> String? {
        var written = 0
        while written < bytes.count {
            let result = write(descriptor, bytes.baseAddress! + written, bytes.count - written)
            if result < 0 {
                if errno != EINTR { return systemMessage() }
            } else {
                written += result
            }
        }
        return nil
    }

    /// Writes to an existing character device or FIFO in place (a FIFO waits for its reader).
    private static func writeThrough(to path: String, write: (Int32) throws -> Void) throws {
        let descriptor = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC)
        guard descriptor >= 0 else { throw ImageError(.unwritable, path: path, reason: systemMessage()) }
        // Checked again on the open file: the name may have been swapped since stat.
        var status = stat()
        guard fstat(descriptor, &status) == 0, [S_IFCHR, S_IFIFO].contains(status.st_mode & S_IFMT) else {
            close(descriptor)
            throw ImageError(.unwritable, path: path, reason: "changed while it was being opened")
        }
        do {
            try write(descriptor)
        } catch {
            close(descriptor)
            throw error
        }
        if close(descriptor) != 0 { throw ImageError(.unwritable, path: path, reason: systemMessage()) }
    }

    /// What a file that is not a regular file is, in words.
    public static func kindDescription(_ mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFDIR: return "is a directory"
        case S_IFBLK: return "is a block device"
        case S_IFSOCK: return "is a socket"
        case S_IFCHR: return "is a character device"
        case S_IFIFO: return "is a FIFO"
        default: return "is not a regular file"
        }
    }

    /// Makes the directories above `path` that are missing, refusing any that would resolve
    /// outside `root` (through `..` or a symbolic link), and `path` itself when it is a symbolic
    /// link leading outside. `root` itself is made if missing.
    ///
    /// Each directory is made only after its parent has been resolved and found inside `root`,
    /// so a refused path has made nothing outside it. Resolved paths are compared as bytes.
    public static func createParentDirectories(of path: String, within root: String) throws {
        func refuse(_ resolved: String) -> ImageError {
            // Two names that print alike but are different bytes (café composed and decomposed).
            let lookalike = resolved == realRootText ? " (the names differ only in their Unicode form)" : ""
            return ImageError(.unwritable, path: path, reason: "its directory resolves to '\(resolved)', outside the output directory '\(root)'\(lookalike)")
        }
        var realRootText = ""
        try makeDirectories(root, for: path)
        guard let realRoot = realPath(root) else { throw ImageError(.unwritable, path: path, reason: systemMessage()) }
        realRootText = realRoot
        var current = PathBytes.isAbsolute(path) ? "" : "."
        for part in PathBytes.components(PathBytes.directoryPrefix(path)) where part != "." {
            let next = current + "/" + part
            var status = stat()
            if lstat(next, &status) != 0 {
                let parent = current.isEmpty ? "/" : current
                guard let realParent = realPath(parent) else { throw ImageError(.unwritable, path: path, reason: "cannot resolve '\(parent)': \(systemMessage())") }
                guard PathBytes.isWithin(realParent, realRoot) else { throw refuse(realParent) }
                if mkdir(next, 0o777) != 0, errno != EEXIST {
                    throw ImageError(.unwritable, path: path, reason: "cannot make directory '\(next)': \(systemMessage())")
                }
            }
            current = next
        }
        guard let realParent = realPath(current.isEmpty ? "/" : current) else {
            throw ImageError(.unwritable, path: path, reason: "cannot resolve '\(current)': \(systemMessage())")
        }
        guard PathBytes.isWithin(realParent, realRoot) else { throw refuse(realParent) }
        // The name itself may be a symbolic link planted in the folder: one leading out of it (to
        // a device, a FIFO, another user's file) is refused whatever it points at, and so is one
        // leading nowhere, which would be written through to wherever it names.
        var status = stat()
        if lstat(path, &status) == 0, (status.st_mode & S_IFMT) == S_IFLNK {
            guard let target = realPath(path), PathBytes.isWithin(target, realRoot) else {
                throw ImageError(.unwritable, path: path, reason: "is a symbolic link leading outside the output directory '\(root)'")
            }
        }
    }

    /// `directory` and the directories above it, made where missing (`mkdir -p`); one that
    /// appears meanwhile (another process making it too) is no error. A failure names `path`,
    /// the file they are made for, or else `directory`.
    public static func makeDirectories(_ directory: String, for path: String? = nil) throws {
        let path = path ?? directory
        var current = PathBytes.isAbsolute(directory) ? "" : "."
        for part in PathBytes.components(directory) {
            current += "/" + part
            if mkdir(current, 0o777) != 0, errno != EEXIST {
                throw ImageError(.unwritable, path: path, reason: "cannot make directory '\(current)': \(systemMessage())")
            }
        }
    }

    /// The names in a directory, `.` and `..` left out (names that are not UTF-8 mended).
    public static func directoryEntries(_ directory: String) throws -> [String] {
        guard let handle = opendir(directory) else { throw ImageError(.unreadable, path: directory, reason: systemMessage()) }
        defer { closedir(handle) }
        var names: [String] = []
        while let entry = readdir(handle) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name != ".", name != ".." { names.append(name) }
        }
        return names
    }

    /// The canonical absolute path, symbolic links resolved; nil if it does not exist.
    public static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    static func systemMessage() -> String { String(cString: strerror(errno)) }
}
