import ImagePipe
#if canImport(Glibc)
import Glibc
#endif

/// The options of `run` (and `explain`) for batches spread over many processes or machines:
/// shards, manifests and ledgers.
struct ShardOptions {
    static let inputsFrom = CommandOption("--inputs-from", value: "FILE", kind: .file, help: """
        Read the inputs from FILE (`-`: standard input), one path a line,
        streamed; relative paths are below the list's directory, and
        {dir} keeps their layout
        """)
    static let null = CommandFlag("-0", "--null", help: "Names in the list end with a NUL byte (find -print0), not a line feed")
    static let base = CommandOption("--base", value: "DIR", kind: .directory, help: "Resolve the list's relative paths against DIR instead")
    static let shard = CommandOption("--shard", value: "K/N", help: """
        Process only shard K of N (1-based): the inputs at positions
        K, K+N, K+2N… of the list, or of the inputs sorted by their bytes
        """)
    static let shards = CommandOption("--shards", value: "N", help: """
        The number of shards, for JOB_COMPLETION_INDEX or PARALLEL_SEQ
        (also IMAGEPIPE_SHARDS); must match the engine's own
        """)
    static let noShard = CommandFlag("--no-shard", help: """
        Ignore SLURM_ARRAY_TASK_ID, JOB_COMPLETION_INDEX and PARALLEL_SEQ
        (without --shard, a batch takes its shard from them)
        """)

    static let options: [any OptionDeclaring] = [inputsFrom, null, base, shard, shards, noShard]

    /// `--ledger` is for `run` only: `explain` writes nothing.
    static let ledger = CommandOption("--ledger", value: "DIR", kind: .directory, help: """
        Append a JSON line per file to DIR/shard-K-of-N.jsonl (shards may
        share DIR); `imagepipe report DIR` merges them
        """)

    let selection: ShardSelection
    /// `--inputs-from`, if given.
    let manifest: String?
    let nulSeparated: Bool
    let base: String?

    init(_ parser: OptionParser, environment: [String: String] = ShardOptions.environment()) throws {
        selection = ShardSelection(explicit: parser.text(of: Self.shard), countOption: parser.text(of: Self.shards),
                                   noShard: parser.has(Self.noShard), environment: environment)
        manifest = parser.text(of: Self.inputsFrom)
        nulSeparated = parser.has(Self.null)
        base = parser.text(of: Self.base)
        if manifest == nil {
            if nulSeparated { throw UsageError("-0 goes with --inputs-from: it says how the list's names end") }
            if base != nil { throw UsageError("--base goes with --inputs-from: it is where the list's relative paths start") }
        }
    }

    /// The directory a manifest's relative names are below: `--base`, else the manifest's own
    /// directory (the current one for standard input), without a trailing slash.
    var baseDirectory: String {
        var directory = base ?? (manifest == "-" ? "." : PathBytes.directoryPrefix(manifest ?? ""))
        while directory.utf8.count > 1, directory.utf8.last == UInt8(ascii: "/") { directory = String(decoding: directory.utf8.dropLast(), as: UTF8.self) }
        return directory.isEmpty ? "." : directory
    }

    /// Opens the manifest, when one was given.
    func openManifest() throws -> ManifestReader? {
        try manifest.map { try ManifestReader(path: $0, nulSeparated: nulSeparated) }
    }

    /// The engines' variables this command reads.
    static func environment() -> [String: String] {
        var values: [String: String] = [:]
        for name in ["SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_COUNT", "SLURM_ARRAY_TASK_MIN", "SLURM_ARRAY_TASK_STEP",
                     "JOB_COMPLETION_INDEX", "PARALLEL_SEQ", "IMAGEPIPE_SHARDS"] {
            if let value = getenv(name) { values[name] = String(cString: value) }
        }
        return values
    }

    /// Sorts inputs by their paths' bytes: the order every machine agrees on, whatever its
    /// locale did to a shell's glob or its file system to a directory listing.
    static func stableOrder(_ inputs: [BatchInput]) -> [BatchInput] {
        inputs.sorted { $0.path.utf8.lexicographicallyPrecedes($1.path.utf8) }
    }
}
