import ImagePipe
#if canImport(Glibc)
import Glibc
#endif

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

        A ledger is read as untrusted: numbers out of range (indices and totals past 2^53) are
        an error naming the file and line, lines past 1 MiB or nested past 128 levels are listed
        as unreadable, and names and messages are printed with control characters escaped (\\x1b).

        Exit status: 0 every input done; 1 some failed or are missing, or one output was written
        by two inputs; 2 a usage error or ledgers that do not belong together.

        Options:
        """ + "\n" + OptionTable.text(options)

    static let declaration = CommandDeclaration("report", summary: "Merge the ledgers of a batch's shards: totals, failures, missing inputs",
                                                help: help, options: options) { try ReportCommand().main($1) }

    static let json = CommandFlag("--json", help: "The report as one JSON object")
    /// The shards' list options, read by `ShardOptions` as run reads them.
    static let options: [any OptionDeclaring] = [
        ShardOptions.inputsFrom.describing(value: "LIST", "The batch's input list, as given to run (`-`: standard input)"),
        ShardOptions.null.describing("The list's names end with a NUL byte"),
        ShardOptions.base.describing("The directory the list's relative paths are below (as for run)"),
        json,
    ]

    /// Failures and missing inputs listed in the text report; --json lists them all.
    static let listLimit = 50
    /// The most missing inputs (and shards that never ran) --json lists: a stopped run's `total`
    /// is believed without a record per input, so it could otherwise ask for 2^53 of them.
    static let jsonListLimit = 10_000_000

    func main(_ arguments: [String]) throws -> Int32 {
        guard let parser = try OptionParser.parse(arguments, options: Self.options, help: Self.help) else { return 0 }
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
        let json = parser.has(Self.json)
        return try Self.write(report, total: total, names: names, json: json) { Console.write($0, to: STDOUT_FILENO) }
    }

    /// Writes the report of `report` through `emit`, in pieces: the list of missing inputs is as
    /// long as the ledgers' `total` says, a number in a file, so it is made as it is written and
    /// never held. The exit status is returned.
    static func write(_ report: LedgerReport, total: Int?, names: [Int: String], json: Bool, jsonListLimit: Int = jsonListLimit,
                      emit: (String) -> Void) throws -> Int32 {
        let entries = report.entries.values.sorted { $0.index < $1.index }
        let failed = entries.filter { $0.error != nil }
        let skipped = entries.filter { $0.skipped && $0.error == nil }.count
        let done = entries.count - failed.count
        // Counted from what the ledgers hold, listed lazily: nothing here is sized by `total`.
        let missingCount = total.map { total in total - report.entries.keys.count { $0 <= total } } ?? 0
        let missing = (0..<(total ?? 0)).lazy.map { $0 + 1 }.filter { report.entries[$0] == nil }
        let shared = report.sharedOutputs()
        let count = report.shardCount
        func shardOf(_ index: Int) -> Int { (index - 1) % count + 1 }
        func missingName(_ index: Int) -> String { names[index] ?? "input #\(index)" }
        // The shards with no ledger, as runs between those that have one: as many as the files read, plus one.
        var neverRan: [ClosedRange<Int>] = []
        var next = 1
        for shard in report.shards.keys.sorted() {
            if shard > next { neverRan.append(next...(shard - 1)) }
            next = shard + 1
        }
        if next <= count { neverRan.append(next...count) }
        let unfinished = report.shards.filter { !$0.value.ended || $0.value.stopped }.keys.sorted()
        let bytes = try report.writtenBytes()
        let work = entries.reduce(0.0) { $0 + $1.seconds }

        if json {
            var pending = ""
            func add(_ text: String) {
                pending += text
                if pending.utf8.count >= 1 << 16 {
                    emit(pending)
                    pending = ""
                }
            }
            func field(_ key: String, _ value: JSONValue) { add(JSONValue.string(key).text + ":" + value.text + ",") }
            add("{")
            field("shards", .number(Double(count)))
            field("inputs", total.map { .number(Double($0)) } ?? .null)
            field("done", .number(Double(done)))
            field("skipped", .number(Double(skipped)))
            field("failed", .number(Double(failed.count)))
            field("missing", total == nil ? .null : .number(Double(missingCount)))
            field("bytes", .number(Double(bytes)))
            field("seconds", .number((work * 1000).rounded() / 1000))
            field("failures", .array(failed.map { .object([("index", .number(Double($0.index))), ("input", .string($0.input)), ("error", .string($0.error ?? ""))]) }))
            add(#""missingInputs":["#)
            var first = true
            for index in missing.prefix(jsonListLimit) {
                add((first ? "" : ",") + JSONValue.object([("index", .number(Double(index))), ("input", names[index].map(JSONValue.string) ?? .null),
                                                            ("shard", .number(Double(shardOf(index))))]).text)
                first = false
            }
            add("],")
            field("sharedOutputs", .array(shared.map { .object([("output", .string($0.output)), ("inputs", .array($0.inputs.map(JSONValue.string)))]) }))
            add(#""shardsNeverRun":["#)
            first = true
            for shard in neverRan.joined().prefix(jsonListLimit) {
                add((first ? "" : ",") + String(shard))
                first = false
            }
            add("],")
            field("shardsUnfinished", .array(unfinished.map { .number(Double($0)) }))
            add(#""unreadableLines":"# + JSONValue.array(report.unreadable.map(JSONValue.string)).text + "}\n")
            emit(pending)
        } else {
            // Names, messages and ledger lines are anyone's text: shown with TerminalText, so an ESC
            // or a line feed in them is printed as an escape, not obeyed by the terminal.
            let shown = TerminalText.escaped
            var lines: [String] = []
            let inputs = total.map { "\($0) inputs" } ?? "\(entries.count) inputs recorded (the list's length is unknown: no shard read it to the end; give --inputs-from)"
            let skippedText = skipped > 0 ? " (\(skipped) skipped, done before)" : ""
            let missingText = total == nil ? "" : ", \(missingCount) missing"
            lines.append("\(count) shard\(count == 1 ? "" : "s"), \(inputs): \(done) done\(skippedText), \(failed.count) failed\(missingText)")
            lines.append("written: \(Self.megabytes(bytes)) in \(ProgressReporter.format(work)) s of work")
            if !neverRan.isEmpty {
                lines.append("shards with no ledger (never ran?): " + neverRan.map { $0.count == 1 ? "\($0.lowerBound)" : "\($0.lowerBound)-\($0.upperBound)" }.joined(separator: ", "))
            }
            if !unfinished.isEmpty { lines.append("shards whose last run did not finish (stopped or killed): " + unfinished.map(String.init).joined(separator: ", ")) }
            Self.list("failed", failed.prefix(listLimit).map { shown($0.error ?? $0.input) }, of: failed.count, into: &lines)
            Self.list("missing (in no ledger)", missing.prefix(listLimit).map { "\(shown(missingName($0))) (shard \(shardOf($0)) of \(count))" }, of: missingCount, into: &lines)
            Self.list("outputs written by more than one input", shared.prefix(listLimit).map { "\(shown($0.output)): \(shown($0.inputs.joined(separator: ", ")))" },
                      of: shared.count, into: &lines)
            if !report.unreadable.isEmpty {
                Self.list("unreadable ledger lines (a run killed while writing?)", report.unreadable.prefix(listLimit).map(shown), of: report.unreadable.count, into: &lines)
            }
            emit(lines.joined(separator: "\n") + "\n")
        }
        return failed.isEmpty && total != nil && missingCount == 0 && shared.isEmpty ? 0 : 1
    }

    /// `items`, the first `listLimit` of `count`, under `title`.
    private static func list(_ title: String, _ items: [String], of count: Int, into lines: inout [String]) {
        guard count > 0 else { return }
        lines.append("\(title):")
        lines += items.map { "  " + $0 }
        if count > items.count { lines.append("  … and \(count - items.count) more (--json lists them all)") }
    }

    static func megabytes(_ bytes: Int) -> String {
        bytes < 1_000_000 ? "\(ProgressReporter.format(Double(bytes) / 1000)) kB" : "\(ProgressReporter.format(Double(bytes) / 1_000_000)) MB"
    }
}
