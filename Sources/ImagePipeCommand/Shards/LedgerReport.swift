import ImagePipe
#if canImport(Glibc)
import Glibc
#endif

/// The ledgers of one batch (`DIR/shard-K-of-N.jsonl`), merged: every input's last record, the
/// shards that never ran or never finished, and the inputs no ledger mentions.
struct LedgerReport {
    /// The last record of one input.
    struct Entry {
        let index: Int
        let input: String
        let outputs: [String]
        let bytes: Int
        let seconds: Double
        let skipped: Bool
        let error: String?
    }

    /// How the runs of one shard went, from its start and end lines.
    struct ShardState {
        var runs = 0
        var ended = false
        var stopped = false
        var total: Int?
    }

    let directory: String
    private(set) var shardCount = 0
    private(set) var shards: [Int: ShardState] = [:]
    private(set) var entries: [Int: Entry] = [:]
    /// Lines that are not a record: a run killed in the middle of a write, or a foreign file.
    private(set) var unreadable: [String] = []

    /// Reads every ledger in `directory`.
    init(directory: String) throws {
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
        for file in files.sorted(by: { $0.index < $1.index }) { try read(file.name, shard: file.index) }
    }

    /// `shard-2-of-4.jsonl` → (2, 4)
    static func shardNumbers(_ name: String) -> (Int, Int)? {
        guard name.hasPrefix("shard-"), name.hasSuffix(".jsonl") else { return nil }
        let middle = name.dropFirst("shard-".count).dropLast(".jsonl".count)
        let parts = middle.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[1] == "of", let index = Int(parts[0]), let count = Int(parts[2]), count >= 1, (1...count).contains(index) else { return nil }
        return (index, count)
    }

    private mutating func read(_ name: String, shard: Int) throws {
        let path = PathBytes.join(directory, name)
        // An input's line holds its path and its outputs' and maybe a long message: allow plenty.
        let reader = try ManifestReader(path: path, nulSeparated: false, maxBytes: 1 << 20)
        var state = shards[shard] ?? ShardState()
        while let line = try reader.next() {
            guard line.problem == nil, let record = JSONValue.parse(line.path), record.objectKeys != nil else {
                unreadable.append("\(name):\(line.line)")
                continue
            }
            switch record["event"]?.stringValue {
            case "start":
                state.runs += 1
                state.ended = false
            case "end":
                state.ended = true
                state.stopped = record["stopped"]?.boolValue ?? false
                if let total = record["total"]?.numberValue { state.total = Int(total) }
            default:
                guard let index = record["index"]?.numberValue.map(Int.init), let input = record["input"]?.stringValue else {
                    unreadable.append("\(name):\(line.line)")
                    continue
                }
                let outputs = record["outputs"]?.arrayValue?.compactMap(\.stringValue) ?? []
                let bytes = record["bytes"]?.arrayValue?.compactMap(\.numberValue).reduce(0, +) ?? 0
                entries[index] = Entry(index: index, input: input, outputs: outputs, bytes: Int(bytes),
                                       seconds: record["seconds"]?.numberValue ?? 0, skipped: record["skipped"]?.boolValue ?? false,
                                       error: record["error"]?.stringValue)
            }
        }
        shards[shard] = state
    }

    /// The number of inputs in the whole list, as the shards that read it to the end saw it.
    /// Throws when they disagree (the list changed between runs).
    func totalFromLedgers() throws -> Int? {
        let totals = shards.compactMapValues(\.total)
        guard Set(totals.values).count <= 1 else {
            let seen = totals.sorted { $0.key < $1.key }.map { "\($0.value) in shard \($0.key)" }.joined(separator: ", ")
            throw UsageError("the ledgers disagree on the number of inputs (\(seen)): did the input list change between runs?")
        }
        return totals.values.first
    }

    /// Outputs that more than one input wrote (a template without {dir} or {index}), each with
    /// the inputs that wrote it.
    func sharedOutputs() -> [(output: String, inputs: [String])] {
        var writers: [String: [String]] = [:]
        for entry in entries.values where entry.error == nil {
            for output in entry.outputs where output != "-" { writers[output, default: []].append(entry.input) }
        }
        return writers.filter { $0.value.count > 1 }.map { ($0.key, $0.value.sorted()) }.sorted { $0.output < $1.output }
    }
}
