#if canImport(Glibc)
import Glibc
#endif

/// Reads a list of inputs (`--inputs-from FILE`, or `-` for standard input) one entry at a time,
/// in 64 KiB reads: a list of ten million names costs the same memory as a list of ten.
///
/// Entries end at a line feed, or at a NUL byte with `-0` (as `find -print0` writes them, for names
/// that hold line feeds). Empty entries are skipped; with line feeds, one carriage return before
/// the line feed is dropped (a list saved on Windows). A name is bytes: one that is not UTF-8, or
/// longer than PATH_MAX, becomes an entry with a problem, so that it fails alone and is counted.
///
/// Not thread-safe: `InputFeed` reads it under its lock.
package final class ManifestReader: @unchecked Sendable {
    package struct Entry {
        package let path: String
        /// Why this entry cannot be used, if it cannot.
        package let problem: String?
        /// 1-based, counting every separator, so a message points at the line an editor shows.
        package let line: Int
    }

    package let name: String
    private let descriptor: Int32
    private let separator: UInt8
    private var buffer = [UInt8](repeating: 0, count: 1 << 16)
    private var start = 0
    private var end = 0
    private var atEnd = false
    private var line = 0
    /// The longest entry taken; longer ones become a problem entry, read past without holding them.
    package let maxBytes: Int
    package static let maxNameBytes = Int(PATH_MAX)

    /// Opens `path` (`-` is standard input).
    package init(path: String, nulSeparated: Bool, maxBytes: Int = ManifestReader.maxNameBytes) throws {
        self.maxBytes = maxBytes
        name = path == "-" ? "standard input" : path
        separator = nulSeparated ? 0 : UInt8(ascii: "\n")
        if path == "-" {
            descriptor = STDIN_FILENO
        } else {
            descriptor = open(path, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else { throw UsageError("cannot read the input list '\(path)': \(String(cString: strerror(errno)))") }
            var status = stat()
            if fstat(descriptor, &status) == 0, (status.st_mode & S_IFMT) == S_IFDIR {
                close(descriptor)
                throw UsageError("the input list '\(path)' is a directory; give a file with one path a line")
            }
        }
    }

    /// Reads `bytes` already in memory, as if they were the file `name` (for the ledger fuzzer,
    /// which must not touch the disk for each input).
    package init(bytes: [UInt8], name: String, nulSeparated: Bool, maxBytes: Int = ManifestReader.maxNameBytes) {
        self.maxBytes = maxBytes
        self.name = name
        separator = nulSeparated ? 0 : UInt8(ascii: "\n")
        descriptor = -1
        buffer = bytes
        end = bytes.count
        atEnd = true
    }

    deinit { if descriptor >= 0 && descriptor != STDIN_FILENO { close(descriptor) } }

    /// The next entry; nil at the end of the list. Throws when reading fails.
    package func next() throws -> Entry? {
        var pending: [UInt8] = []
        var tooLong = false
        while true {
            if start == end {
                if atEnd { return finish(pending, tooLong: tooLong, last: true) }
                try fill()
                continue
            }
            let slice = buffer[start..<end]
            if let cut = slice.firstIndex(of: separator) {
                if !tooLong { pending += buffer[start..<cut] }
                start = cut + 1
                line += 1
                if let entry = finish(pending, tooLong: tooLong || pending.count > maxBytes, last: false) { return entry }
                pending.removeAll(keepingCapacity: true)
                tooLong = false
            } else {
                if !tooLong { pending += slice }
                if pending.count > maxBytes {
                    tooLong = true
                    pending.removeAll()
                }
                start = end
            }
        }
    }

    private func fill() throws {
        let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        if count < 0 {
            if errno == EINTR { return }
            throw UsageError("reading the input list \(name) failed after line \(line): \(String(cString: strerror(errno)))")
        }
        start = 0
        end = count
        if count == 0 { atEnd = true }
    }

    /// The entry for one separated piece, or nil for an empty one.
    private func finish(_ bytes: [UInt8], tooLong: Bool, last: Bool) -> Entry? {
        if last {
            guard !bytes.isEmpty || tooLong else { return nil }
            line += 1
        }
        var bytes = bytes
        if separator != 0, bytes.last == UInt8(ascii: "\r") { bytes.removeLast() }
        if tooLong {
            return Entry(path: "(line \(line))", problem: "\(name):\(line): an entry longer than \(maxBytes) bytes", line: line)
        }
        guard !bytes.isEmpty else { return nil }
        guard let path = String(validating: bytes, as: UTF8.self) else {
            // The path holds U+FFFD for each bad byte, which a real name could hold too: the message
            // gives the bytes themselves (as \xNN), so the ledger and the terminal tell them apart.
            return Entry(path: String(decoding: bytes, as: UTF8.self),
                         problem: "\(name):\(line): the name is not valid UTF-8: \(TerminalText.escaped(bytes: bytes))", line: line)
        }
        if bytes.contains(0) {
            return Entry(path: path, problem: "\(name):\(line): the name holds a NUL byte", line: line)
        }
        return Entry(path: path, problem: nil, line: line)
    }
}
