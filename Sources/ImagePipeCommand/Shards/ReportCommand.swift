import ImagePipe

/// `imagepipe report DIR`: merges the ledgers that `run --ledger DIR` wrote, one per shard.
struct ReportCommand {
    static let help = """
        usage: imagepipe report DIR [--inputs-from LIST [-0] [--base DIR]] [--json]

        Merges the ledgers in DIR (shard-K-of-N.jsonl, one per shard, written by
        `imagepipe run … --ledger DIR`): how many inputs were done, skipped and failed, each
        failure with its reason, and the inputs that are in no ledger: those of a shard that
        never ran, or that was stopped before reaching them. A shard's last record of an input
        counts, so a shard run again after a failure or a kill reports its new outcome.

        The number of inputs comes from the shards that read their list to the end; give the
        list itself with --inputs-from to name missing inputs by path, or when no shard finished.

        Exit status: 0 every input done; 1 some failed or are missing, or one output was written
        by two inputs; 2 a usage error or ledgers that do not belong together.

        Options:
          --inputs-from LIST     The batch's input list, as given to run (`-`: standard input)
          -0, --null             The list's names end with a NUL byte
          --base DIR             The directory the list's relative paths are below (as for run)
          --json                 The report as one JSON object
          -h, --help             Show this help
        """

    /// Failures and missing inputs listed in the text report; --json lists them all.
    static let listLimit = 50

    func main(_ arguments: [String]) throws -> Int32 {
        guard let parser = try OptionParser.parse(arguments, options: [
            .init(names: ["--inputs-from"], takesValue: true),
            .init(names: ["-0", "--null"], takesValue: false),
            .init(names: ["--base"], takesValue: true),
            .init(names: ["--json"], takesValue: false),
        ], help: Self.help) else { return 0 }
        guard parser.positionals.count == 1 else { throw UsageError("report takes one ledger directory; see imagepipe report --help") }
        let report = try LedgerReport(directory: parser.positionals[0])
        let sharding = try ShardOptions(parser, environment: [:])
        var total = try report.totalFromLedgers()
        var names: [Int: String] = [:] // missing positions → their paths, when the list is given
        if let manifest = try sharding.openManifest() {
            var count = 0
            let base = sharding.baseDirectory
            while let entry = try manifest.next() {
                count += 1
                if report.entries[count] == nil { names[count] = PathBytes.isAbsolute(entry.path) ? entry.path : PathBytes.join(base, entry.path) }
            }
            if let total, total != count {
                throw UsageError("the list has \(count) inputs but the ledgers saw \(total): is it the list the shards read?")
            }
            total = count
        }
        let entries = report.entries.values.sorted { $0.index < $1.index }
        let failed = entries.filter { $0.error != nil }
        let skipped = entries.filter { $0.skipped && $0.error == nil }.count
        let done = entries.count - failed.count
        let missing = total.map { total in (1...max(1, total)).filter { $0 <= total && report.entries[$0] == nil } } ?? []
        let shared = report.sharedOutputs()
        let count = report.shardCount
        func shardOf(_ index: Int) -> Int { (index - 1) % count + 1 }
        func missingName(_ index: Int) -> String { names[index] ?? "input #\(index)" }
        let neverRan = (1...count).filter { report.shards[$0] == nil }
        let unfinished = (1...count).filter { report.shards[$0].map { !$0.ended || $0.stopped } ?? false }
        let bytes = entries.filter { $0.error == nil }.reduce(0) { $0 + $1.bytes }
        let work = entries.reduce(0.0) { $0 + $1.seconds }

        if parser.has("--json") {
            let object: JSONValue = .object([
                ("shards", .number(Double(count))), ("inputs", total.map { .number(Double($0)) } ?? .null),
                ("done", .number(Double(done))), ("skipped", .number(Double(skipped))), ("failed", .number(Double(failed.count))),
                ("missing", total == nil ? .null : .number(Double(missing.count))), ("bytes", .number(Double(bytes))),
                ("seconds", .number((work * 1000).rounded() / 1000)),
                ("failures", .array(failed.map { .object([("index", .number(Double($0.index))), ("input", .string($0.input)), ("error", .string($0.error ?? ""))]) })),
                ("missingInputs", .array(missing.map { .object([("index", .number(Double($0))), ("input", names[$0].map(JSONValue.string) ?? .null), ("shard", .number(Double(shardOf($0))))]) })),
                ("sharedOutputs", .array(shared.map { .object([("output", .string($0.output)), ("inputs", .array($0.inputs.map(JSONValue.string)))]) })),
                ("shardsNeverRun", .array(neverRan.map { .number(Double($0)) })), ("shardsUnfinished", .array(unfinished.map { .number(Double($0)) })),
                ("unreadableLines", .array(report.unreadable.map(JSONValue.string))),
            ])
            Console.output(object.text)
        } else {
            var lines: [String] = []
            let inputs = total.map { "\($0) inputs" } ?? "\(entries.count) inputs recorded (the list's length is unknown: no shard read it to the end; give --inputs-from)"
            let skippedText = skipped > 0 ? " (\(skipped) skipped, done before)" : ""
            let missingText = total == nil ? "" : ", \(missing.count) missing"
            lines.append("\(count) shard\(count == 1 ? "" : "s"), \(inputs): \(done) done\(skippedText), \(failed.count) failed\(missingText)")
            lines.append("written: \(Self.megabytes(bytes)) in \(ProgressReporter.format(work)) s of work")
            if !neverRan.isEmpty { lines.append("shards with no ledger (never ran?): " + neverRan.map(String.init).joined(separator: ", ")) }
            if !unfinished.isEmpty { lines.append("shards whose last run did not finish (stopped or killed): " + unfinished.map(String.init).joined(separator: ", ")) }
            Self.list("failed", failed.map { $0.error ?? $0.input }, into: &lines)
            Self.list("missing (in no ledger)", missing.map { "\(missingName($0)) (shard \(shardOf($0)) of \(count))" }, into: &lines)
            Self.list("outputs written by more than one input", shared.map { "\($0.output): \($0.inputs.joined(separator: ", "))" }, into: &lines)
            if !report.unreadable.isEmpty { Self.list("unreadable ledger lines (a run killed while writing?)", report.unreadable, into: &lines) }
            Console.output(lines.joined(separator: "\n"))
        }
        return failed.isEmpty && total != nil && missing.isEmpty && shared.isEmpty ? 0 : 1
    }

    private static func list(_ title: String, _ items: [String], into lines: inout [String]) {
        guard !items.isEmpty else { return }
        lines.append("\(title):")
        lines += items.prefix(listLimit).map { "  " + $0 }
        if items.count > listLimit { lines.append("  … and \(items.count - listLimit) more (--json lists them all)") }
    }

    static func megabytes(_ bytes: Int) -> String {
        bytes < 1_000_000 ? "\(ProgressReporter.format(Double(bytes) / 1000)) kB" : "\(ProgressReporter.format(Double(bytes) / 1_000_000)) MB"
    }
}
