
/// One shard of a batch: the K-th of N (1-based, as `--shard K/N` writes it), and which engine
/// or option chose it.
///
/// Inputs are dealt out in turn: the input at 0-based position p belongs to shard p mod N + 1.
/// Dealing rather than cutting the list into N blocks lets a shard start at once on a streamed
/// manifest (a block needs the total first, a second pass over ten million lines), and spreads
/// neighbours, such as one directory of big panoramas, over every shard instead of one.
package struct Shard: Sendable, Equatable {
    package let index: Int
    package let count: Int
    /// `slurm`, `kubernetes`, `parallel` or `option`.
    package let engine: String
    /// Where the numbers came from, for `explain` and the summary: `SLURM_ARRAY_TASK_ID=5, …`.
    package let origin: String

    /// The most shards a batch may be split into (Slurm's largest array is 4,000,001 tasks).
    package static let maxCount = 10_000_000

    package init(index: Int, count: Int, engine: String, origin: String) {
        (self.index, self.count, self.engine, self.origin) = (index, count, engine, origin)
    }

    /// Whether the input at 0-based `position` is this shard's.
    package func contains(position: Int) -> Bool { position % count == index - 1 }

    /// How many of `total` inputs fall in `shard` (all of them without one).
    package static func share(of total: Int, in shard: Shard?) -> Int {
        guard let shard else { return total }
        return total >= shard.index ? (total - shard.index) / shard.count + 1 : 0
    }

    /// `shard-2-of-4`: the name of this shard's ledger file, without `.jsonl`.
    package var name: String { "shard-\(index)-of-\(count)" }

    /// `shard 2 of 4 (from Slurm: SLURM_ARRAY_TASK_ID=5, …)`
    package var description: String { "shard \(index) of \(count) (from \(origin))" }

    package var json: JSONValue {
        .object([("index", .number(Double(index))), ("count", .number(Double(count))), ("engine", .string(engine)), ("from", .string(origin))])
    }
}
