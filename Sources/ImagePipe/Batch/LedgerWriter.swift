#if canImport(Glibc)
import Glibc
#endif

/// `--ledger DIR`: one JSON line per finished input in `DIR/shard-K-of-N.jsonl`, after a start
/// line and before an end line, for `imagepipe report DIR` to merge.
///
/// Each shard has its own file, so shards on many machines can share DIR (a network file system)
/// without locks; the file is opened with O_APPEND and every line goes out in one write(2), so a
/// re-run of the shard appends after the lines of the run it resumes, and a killed run leaves
/// whole lines (the report skips a torn last line all the same). The line of an input is written
/// after its outputs have landed: an input in the ledger as done has its outputs complete.
package final class LedgerWriter: Sendable {
    package let path: String
    private let descriptor: Int32
    private let failure = Locked<String?>(nil)

    /// Opens (or makes) `directory` and this shard's file in it.
    ///
    /// The file is appended to by a process that may run for days on a shared machine, with
    /// names in it that anyone who can name an input chooses: were it a symbolic link planted by
    /// another user (`shard-1-of-1.jsonl → ~/.bashrc`), those names would land in the victim's
    /// file. So, as ssh and GnuPG treat their folders: the folder must be the user's (or root's)
    /// and not writable by every user unless sticky (as /tmp: others may add files but not replace
    /// ours); the file is opened without following a link, and must be a regular file of the user's
    /// with one name (a hard link to another file is refused too). Every name and message in a
    /// line is JSON-escaped, control characters included, so no line can hold more than one record.
    package init(directory: String, shard: Shard) throws {
        // A file `imagepipe report` would not take as a ledger is refused before any work is done.
        guard shard.count <= Shard.maxCount else {
            throw UsageError("a ledger takes at most \(Shard.maxCount) shards, not \(shard.count)")
        }
        // `mkdir -p`, which tolerates another shard making the same directory at the same moment.
        do { try ImageFile.makeDirectories(directory) } catch let error as ImageError {
            throw UsageError("cannot write the ledger '\(directory)': \(error.reason)")
        }
        guard OutputCheck.isDirectory(directory) else { throw UsageError("the ledger '\(directory)' is not a directory") }
        path = PathBytes.join(directory, shard.name + ".jsonl")
        // The checks and the open go through one descriptor of the folder, so the folder checked
        // is the folder written in, whatever is renamed meanwhile.
        let folder = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard folder >= 0 else { throw UsageError("cannot open the ledger '\(directory)': \(String(cString: strerror(errno)))") }
        defer { close(folder) }
        var status = stat()
        guard fstat(folder, &status) == 0 else { throw UsageError("cannot read the ledger '\(directory)': \(String(cString: strerror(errno)))") }
        let user = geteuid()
        guard status.st_uid == user || status.st_uid == 0 else {
            throw UsageError("the ledger '\(directory)' belongs to another user (uid \(status.st_uid)): use a folder of your own")
        }
        // Writable by every user and not sticky: anyone could swap the file between two runs.
        // A group-writable folder is allowed (a project's shared folder on a cluster, or any folder
        // under umask 002): a file a group member plants is a link or not the user's, and refused below.
        let mode = status.st_mode & 0o7777
        guard mode & 0o002 == 0 || mode & S_ISVTX != 0 else {
            throw UsageError("the ledger '\(directory)' is writable by every user (mode \(String(mode, radix: 8))) and not sticky: another user "
                + "could put a file or link in its place; use a folder others cannot write in (chmod o-w)")
        }
        // O_NONBLOCK: opening a FIFO planted under the name must fail or return, not wait for a reader.
        let file = openat(folder, shard.name + ".jsonl", O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0o644)
        guard file >= 0 else {
            let reason = errno == ELOOP ? "it is a symbolic link" : String(cString: strerror(errno))
            throw UsageError("cannot write the ledger '\(path)': \(reason)")
        }
        guard fstat(file, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG, status.st_uid == user, status.st_nlink == 1 else {
            let what = (status.st_mode & S_IFMT) != S_IFREG ? "not a regular file" : status.st_uid != user ? "a file of another user" : "a file with other names (hard links)"
            close(file)
            throw UsageError("cannot write the ledger '\(path)': it is \(what)")
        }
        _ = fcntl(file, F_SETFL, O_APPEND)
        descriptor = file
    }

    deinit { close(descriptor) }

    /// The first write error, if any: the command reports it and fails, since a ledger with holes
    /// would make the report count inputs as missing.
    package var writeError: String? { failure.withLock { $0 } }

    /// The line that opens a run of this shard.
    package func start(shard: Shard, inputs: String, total: Int?) {
        write(.object([
            ("event", .string("start")), ("shard", .number(Double(shard.index))), ("shards", .number(Double(shard.count))),
            ("from", .string(shard.origin)), ("inputs", .string(inputs)), ("total", total.map { .number(Double($0)) } ?? .null),
            ("host", .string(Self.hostName())), ("pid", .number(Double(getpid()))), ("time", .number(Double(time(nil)))),
        ]))
    }

    /// One finished input: its place in the list, then what `--json` says of it (what it was,
    /// what it wrote, sizes, how long, why it failed) with how large each output is, so the two
    /// never disagree. The stages' notes stay out: the report has no use for them.
    package func record(_ outcome: FileOutcome, index: Int) {
        let sizes = outcome.outputs.map { output -> JSONValue in
            var status = stat()
            return stat(output, &status) == 0 && (status.st_mode & S_IFMT) == S_IFREG ? .number(Double(status.st_size)) : .null
        }
        var fields: [(String, JSONValue)] = [("index", .number(Double(index)))]
        for (key, value) in outcome.jsonFields where key != "notes" {
            fields.append((key, value))
            if key == "outputs" { fields.append(("bytes", .array(sizes))) }
        }
        write(.object(fields))
    }

    /// The line that closes a run: `total` is the whole list's length when this run read it all.
    package func end(shard: Shard, total: Int?, done: Int, failed: Int, stopped: Bool, seconds: Double) {
        write(.object([
            ("event", .string("end")), ("shard", .number(Double(shard.index))), ("shards", .number(Double(shard.count))),
            ("total", total.map { .number(Double($0)) } ?? .null), ("done", .number(Double(done))), ("failed", .number(Double(failed))),
            ("stopped", .bool(stopped)), ("seconds", .number((seconds * 1000).rounded() / 1000)),
        ]))
    }

    private func write(_ value: JSONValue) {
        let bytes = Array((value.text + "\n").utf8)
        let written = bytes.withUnsafeBytes { buffer -> Int in
            while true {
                let count = Glibc.write(descriptor, buffer.baseAddress, buffer.count)
                if count < 0 && errno == EINTR { continue }
                return count
            }
        }
        if written != bytes.count {
            let reason = written < 0 ? String(cString: strerror(errno)) : "only \(written) of \(bytes.count) bytes written"
            failure.withLock { if $0 == nil { $0 = "writing the ledger '\(path)' failed: \(reason)" } }
        }
    }

    package static func hostName() -> String {
        var bytes = [CChar](repeating: 0, count: 256)
        guard gethostname(&bytes, 255) == 0 else { return "" }
        return String(decoding: bytes.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
