import ImagePipe
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
final class LedgerWriter: Sendable {
    let path: String
    private let descriptor: Int32
    private let failure = Locked<String?>(nil)

    /// Opens (or makes) `directory` and this shard's file in it.
    init(directory: String, shard: Shard) throws {
        // `mkdir -p`, which tolerates another shard making the same directory at the same moment.
        do { try ImageFile.makeDirectories(directory) } catch let error as ImageError {
            throw UsageError("cannot write the ledger '\(directory)': \(error.reason)")
        }
        guard OutputCheck.isDirectory(directory) else { throw UsageError("the ledger '\(directory)' is not a directory") }
        path = PathBytes.join(directory, shard.name + ".jsonl")
        descriptor = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw UsageError("cannot write the ledger '\(path)': \(String(cString: strerror(errno)))") }
    }

    deinit { close(descriptor) }

    /// The first write error, if any: the command reports it and fails, since a ledger with holes
    /// would make the report count inputs as missing.
    var writeError: String? { failure.withLock { $0 } }

    /// The line that opens a run of this shard.
    func start(shard: Shard, inputs: String, total: Int?) {
        write(.object([
            ("event", .string("start")), ("shard", .number(Double(shard.index))), ("shards", .number(Double(shard.count))),
            ("from", .string(shard.origin)), ("inputs", .string(inputs)), ("total", total.map { .number(Double($0)) } ?? .null),
            ("host", .string(Self.hostName())), ("pid", .number(Double(getpid()))), ("time", .number(Double(time(nil)))),
        ]))
    }

    /// One finished input: its place in the list, then what `--json` says of it (what it was,
    /// what it wrote, sizes, how long, why it failed) with how large each output is, so the two
    /// never disagree. The stages' notes stay out: the report has no use for them.
    func record(_ outcome: FileOutcome, index: Int) {
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
    func end(shard: Shard, total: Int?, done: Int, failed: Int, stopped: Bool, seconds: Double) {
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

    static func hostName() -> String {
        var bytes = [CChar](repeating: 0, count: 256)
        guard gethostname(&bytes, 255) == 0 else { return "" }
        return String(decoding: bytes.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
