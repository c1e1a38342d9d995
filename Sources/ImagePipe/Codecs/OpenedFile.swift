#if canImport(Glibc)
import Glibc
#endif

/// A regular picture file, opened once: its header is read from it, and its decoder goes on
/// from the same descriptor (`ImageHeader.source`). So a run opens each input once, and a file
/// renamed or replaced between the header read and the decode cannot slip in between them.
/// Reads are `pread`s at an offset, so readers never share a file position.
package final class OpenedFile: Sendable {
    package let path: String
    let descriptor: Int32
    /// The file's size when it was opened.
    let size: Int

    private init(path: String, descriptor: Int32, size: Int) {
        self.path = path
        self.descriptor = descriptor
        self.size = size
    }

    deinit { close(descriptor) }

    /// The regular file at `path`, refused when larger than `limit` bytes; nil when `path` is
    /// something else (a FIFO or device, which `ImageFile.readChunks(path:)` reads as it comes).
    static func open(path: String, limit: Int?) throws -> OpenedFile? {
        var status = stat()
        guard stat(path, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else { return nil }
        // Without blocking, should the name become a FIFO after the stat.
        let descriptor = Glibc.open(path, O_RDONLY | O_NOCTTY | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else { throw ImageFile.readError(path: path) }
        // The descriptor's own status: the name may have changed hands since the stat above.
        guard fstat(descriptor, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else {
            close(descriptor)
            return nil
        }
        let file = OpenedFile(path: path, descriptor: descriptor, size: Int(status.st_size))
        if let limit, file.size > limit { throw ImageError.tooManyBytes(limit: limit, path: path) }
        return file
    }

    /// Calls `body` with successive chunks of the file from its start, until it returns false or
    /// the file ends; stops at `deadline`.
    func readChunks(chunkSize: Int = 1 << 16, deadline: ContinuousClock.Instant? = nil,
                    _ body: (UnsafeRawBufferPointer) throws -> Bool) throws {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunkSize, alignment: 16)
        defer { buffer.deallocate() }
        var offset = 0
        while true {
            let count = try read(into: buffer.baseAddress!, count: chunkSize, at: offset)
            if count == 0 { return }
            offset += count
            if let deadline, ContinuousClock.now > deadline {
                throw ImageError(.timedOut, path: path, reason: "reading went past the time limit")
            }
            if try !body(UnsafeRawBufferPointer(rebasing: buffer[0..<count])) { return }
        }
    }

    /// Every byte of the file, read into one buffer of its size.
    func readAll() throws -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: size)
        let got = try bytes.withUnsafeMutableBytes { buffer -> Int in
            var done = 0
            while done < size {
                let count = try read(into: buffer.baseAddress! + done, count: size - done, at: done)
                if count == 0 { break }
                done += count
            }
            return done
        }
        // A file cut short since it was opened is what it now is.
        if got < size { bytes.removeLast(size - got) }
        return bytes
    }

    /// The file's first `count` bytes (fewer when it is shorter).
    func prefix(_ count: Int) throws(ImageError) -> [UInt8] { try bytes(count: count, at: 0) }

    /// At most `count` bytes from `offset` (fewer at the end, none past it).
    func bytes(count: Int, at offset: Int) throws(ImageError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        let read = bytes.withUnsafeMutableBytes { buffer in
            Result { () throws(ImageError) in try self.read(into: buffer.baseAddress!, count: count, at: offset) }
        }
        bytes.removeLast(count - (try read.get()))
        return bytes
    }

    /// At most `count` bytes from `offset`: fewer at the end, none past it.
    private func read(into buffer: UnsafeMutableRawPointer, count: Int, at offset: Int) throws(ImageError) -> Int {
        while true {
            let got = pread(descriptor, buffer, count, off_t(offset))
            if got >= 0 { return got }
            if errno != EINTR { throw ImageError(.unreadable, path: path, reason: ImageFile.systemMessage()) }
        }
    }
}
