#if canImport(Glibc)
import Glibc
#endif

/// The ledgers of one batch (`DIR/shard-K-of-N.jsonl`), merged: every input's last record, the
/// shards that never ran or never finished, and the inputs no ledger mentions.
///
/// A ledger is read as untrusted input: anyone who can write in DIR can write one. Every number
/// is range-checked (a value out of range is an error naming the file and line, never a trap);
/// a line is at most `maxLineBytes` and nests at most `JSONValue.maxDepth` levels; and what is
/// kept grows with the lines read, never with a number in them (a `total` or a shard count says
/// how many inputs are missing, it does not size anything).
package struct LedgerReport {
    /// The last record of one input.
    package struct Entry: Sendable {
        package let index: Int
        package let input: String
        package let outputs: [String]
        package let bytes: Int
        package let seconds: Double
        package let skipped: Bool
        package let error: String?
    }

    /// How the runs of one shard went, from its start and end lines.
    package struct ShardState {
        package var runs = 0
        package var ended = false
        package var stopped = false
        package var total: Int?
    }

    /// The most shards a batch may be split into (`Shard.maxCount`).
    package static let maxShards = Shard.maxCount
    /// The largest index, total or byte count: the whole numbers a JSON number holds exactly.
    package static let maxCount = 1 << 53
    /// The longest time one input may have taken, in seconds (about 115 days).
    package static let maxSeconds = 1e7
    /// An input's line holds its path and its outputs' and maybe a long message: allow plenty.
    package static let maxLineBytes = 1 << 20

    package let directory: String
    package private(set) var shardCount = 0
    package private(set) var shards: [Int: ShardState] = [:]
    package private(set) var entries: [Int: Entry] = [:]
    /// Lines that are not a record: a run killed in the middle of a write, or a foreign file.
    package private(set) var unreadable: [String] = []

    /// Reads every ledger in `directory`.
    package init(directory: String) throws {
        self.directory = directory
        guard let handle = opendir(directory) else {
            throw UsageError("cannot read the ledger directory '\(directory)': \(String(cString: strerror(errno)))")
        }
        var files: [(name: String, index: Int, count: Int)] = []
        while let entry = readdir(handle) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
            if let (index, count) = Self.shardNumbers(name) { files.append((name, index, count)) }
        }
        closedir(handle)
        guard !files.isEmpty else { throw UsageError("no ledgers (shard-K-of-N.jsonl) in '\(directory)'") }
        let counts = Set(files.map(\.count)).sorted()
        guard counts.count == 1 else {
            throw UsageError("'\(directory)' holds ledgers of \(counts.map(String.init).joined(separator: " and ")) shards: runs split differently share it; give each split its own --ledger directory")
        }
        shardCount = counts[0]
        for file in files.sorted(by: { $0.index < $1.index }) {
            let reader = try ManifestReader(path: PathBytes.join(directory, file.name), nulSeparated: false, maxBytes: Self.maxLineBytes)
            try read(reader, name: file.name, shard: file.index)
        }
    }

    /// Reads one ledger's bytes as the file `name` (`shard-K-of-N.jsonl`) of a directory holding
    /// only it: what the ledger fuzzer checks.
    package init(name: String, bytes: [UInt8]) throws {
        directory = "."
        guard let (index, count) = Self.shardNumbers(name) else { throw UsageError("'\(name)' is not a ledger's name (shard-K-of-N.jsonl)") }
        shardCount = count
        try read(ManifestReader(bytes: bytes, name: name, nulSeparated: false, maxBytes: Self.maxLineBytes), name: name, shard: index)
    }

    /// Reads `shard`'s own ledger in `directory`, what a `Batch` resuming that shard goes by: not
    /// the other shards' files, which a resumed shard has no inputs in, and which on a shared
    /// folder would make every shard read every other's lines. No file yet reads as empty.
    package init(directory: String, shard: Shard) throws {
        self.directory = directory
        shardCount = shard.count
        let name = shard.name + ".jsonl"
        let path = PathBytes.join(directory, name)
        guard access(path, F_OK) == 0 else { return }
        guard access(path, R_OK) == 0 else { throw UsageError("cannot read the ledger '\(path)' to resume from it: \(String(cString: strerror(errno)))") }
        try read(ManifestReader(path: path, nulSeparated: false, maxBytes: Self.maxLineBytes), name: name, shard: shard.index)
    }

    /// `shard-2-of-4.jsonl` → (2, 4); nil for any other name, or numbers out of range. Numbers are
    /// plain digits without leading zeros, so no two names claim the same shard.
    package static func shardNumbers(_ name: String) -> (Int, Int)? {
        guard name.hasPrefix("shard-"), name.hasSuffix(".jsonl") else { return nil }
        let middle = name.utf8.dropFirst("shard-".count).dropLast(".jsonl".count)
        let parts = middle.split(separator: UInt8(ascii: "-"), omittingEmptySubsequences: false)
        func number(_ digits: Substring.UTF8View.SubSequence) -> Int? {
            // At most 8 digits: more is past `maxShards` already, and Int(…) is never asked to overflow.
            guard (1...8).contains(digits.count), digits.allSatisfy({ (0x30...0x39).contains($0) }), digits.first != 0x30 else { return nil }
            return digits.reduce(0) { $0 * 10 + Int($1 - 0x30) }
        }
        guard parts.count == 3, parts[1].elementsEqual("of".utf8), let index = number(parts[0]), let count = number(parts[2]),
              count <= maxShards, (1...count).contains(index) else { return nil }
        return (index, count)
    }

    private mutating func read(_ reader: ManifestReader, name: String, shard: Int) throws {
        var state = shards[shard] ?? ShardState()
        // The positions of this shard this file records, and where its last total was said: a run
        // that read its list to the end recorded every input of its share, so a total its file
        // cannot back is refused rather than believed.
        var recorded = Set<Int>()
        var totalLine = 0
        while let line = try reader.next() {
            let place = "\(name):\(line.line)"
            guard line.problem == nil else {
                unreadable.append("\(place) (longer than \(Self.maxLineBytes) bytes)")
                continue
            }
            let record: JSONValue
            do { record = try JSONValue.parsing(line.path) } catch {
                unreadable.append(error.reason == "not valid JSON" ? place : "\(place) (\(error.reason))")
                continue
            }
            guard record.objectKeys != nil else {
                unreadable.append(place)
                continue
            }
            switch record["event"]?.stringValue {
            case "start":
                state.runs += 1
                state.ended = false
            case "end":
                state.ended = true
                state.stopped = record["stopped"]?.boolValue ?? false
                if let total = try Self.whole(record["total"], "total", in: 0...Self.maxCount, at: place) {
                    state.total = total
                    totalLine = line.line
                }
            default:
                guard record["index"] != nil, let input = record["input"]?.stringValue else {
                    unreadable.append(place)
                    continue
                }
                let index = try Self.whole(record["index"], "index", in: 1...Self.maxCount, at: place)!
                var bytes = 0
                for size in record["bytes"]?.arrayValue ?? [] {
                    guard let size = try Self.whole(size, "bytes", in: 0...Self.maxCount, at: place) else { continue }
                    bytes += size // cannot overflow: a line of 2^20 bytes holds fewer than 2^10 sizes of 2^53
                }
                var seconds = 0.0
                if let value = record["seconds"], value != .null {
                    guard let number = value.numberValue, (0...Self.maxSeconds).contains(number) else {
                        throw UsageError("\(place): \"seconds\" is \(Self.shown(value)), not a number of seconds from 0 to \(Int(Self.maxSeconds))")
                    }
                    seconds = number
                }
                let outputs = record["outputs"]?.arrayValue?.compactMap(\.stringValue) ?? []
                entries[index] = Entry(index: index, input: input, outputs: outputs, bytes: bytes, seconds: seconds,
                                       skipped: record["skipped"]?.boolValue ?? false, error: record["error"]?.stringValue)
                if (index - 1) % shardCount + 1 == shard { recorded.insert(index) }
            }
        }
        if state.ended, !state.stopped, let total = state.total {
            let share = Shard.share(of: total, in: Shard(index: shard, count: shardCount, engine: "option", origin: name))
            let backed = recorded.count { $0 <= total }
            if backed < share {
                throw UsageError("\(name):\(totalLine): the run says its list had \(total) inputs, \(share) of them this shard's, "
                    + "but the ledger records \(backed): not a ledger imagepipe wrote whole (lost lines, or edited)")
            }
        }
        shards[shard] = state
    }

    /// A whole number from `range`, or nil when the field is absent or null; an error naming the
    /// place for anything else (1e300, -1, 2.5, a string).
    private static func whole(_ value: JSONValue?, _ key: String, in range: ClosedRange<Int>, at place: String) throws -> Int? {
        guard let value, value != .null else { return nil }
        // Compared as Doubles before any conversion: Int(1e300) would trap.
        guard let number = value.numberValue, number.rounded() == number, number >= Double(range.lowerBound), number <= Double(range.upperBound) else {
            throw UsageError("\(place): \"\(key)\" is \(shown(value)), not a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return Int(number)
    }

    /// A value for a message: its JSON text, cut short.
    private static func shown(_ value: JSONValue) -> String {
        let text = value.text
        return text.count > 40 ? String(text.prefix(40)) + "…" : text
    }

    /// The bytes the done inputs wrote; an error, not a trap, should a crafted ledger's sizes add
    /// up past what an Int holds.
    package func writtenBytes() throws -> Int {
        var sum = 0
        for entry in entries.values where entry.error == nil {
            let (added, overflow) = sum.addingReportingOverflow(entry.bytes)
            guard !overflow else { throw UsageError("the ledgers' output sizes add up past \(Int.max) bytes: not ledgers imagepipe wrote") }
            sum = added
        }
        return sum
    }

    /// The number of inputs in the whole list, as the shards that read it to the end saw it.
    /// Throws when they disagree (the list changed between runs).
    package func totalFromLedgers() throws -> Int? {
        let totals = shards.compactMapValues(\.total)
        guard Set(totals.values).count <= 1 else {
            let seen = totals.sorted { $0.key < $1.key }.map { "\($0.value) in shard \($0.key)" }.joined(separator: ", ")
            throw UsageError("the ledgers disagree on the number of inputs (\(seen)): did the input list change between runs?")
        }
        return totals.values.first
    }

    /// Outputs that more than one input wrote (a template without {dir} or {index}), each with
    /// the inputs that wrote it.
    package func sharedOutputs() -> [(output: String, inputs: [String])] {
        var writers: [String: [String]] = [:]
        for entry in entries.values where entry.error == nil {
            for output in entry.outputs where output != "-" { writers[output, default: []].append(entry.input) }
        }
        return writers.filter { $0.value.count > 1 }.map { ($0.key, $0.value.sorted()) }.sorted { $0.output < $1.output }
    }
}
