import ImagePipe

/// Chooses the shard a run processes: `--shard K/N` when given, else the engine's environment.
///
/// - Slurm array jobs: `SLURM_ARRAY_TASK_ID` among `SLURM_ARRAY_TASK_MIN`, `_STEP` and
///   `SLURM_ARRAY_TASK_COUNT` (so `--array=4-7` is shards 1–4 of 4).
/// - Kubernetes Indexed Jobs: `JOB_COMPLETION_INDEX` (0-based); the Job does not tell its pods how
///   many completions it has, so the count comes from `--shards N` or `IMAGEPIPE_SHARDS`, and
///   is required.
/// - GNU parallel: `PARALLEL_SEQ` (1-based), only with a count (`--shards N` or
///   `IMAGEPIPE_SHARDS`): parallel sets it for every job it runs, most of which are not shards.
///
/// The environment splits batches only (several inputs, a directory, a manifest): a task that
/// runs `imagepipe run p.pipe in-$SLURM_ARRAY_TASK_ID.jpg` keeps its one picture. `--no-shard`
/// ignores the environment. A count that disagrees with the engine's is an error, not a guess:
/// two disagreeing splits process some inputs twice and others never. An explicit `--shard K/N`
/// is taken as it is, whatever the environment says.
struct ShardSelection {
    let explicit: String?
    let countOption: String?
    let noShard: Bool
    let environment: [String: String]

    /// The shard, or nil to process every input.
    func resolve(batch: Bool) throws -> Shard? {
        let count = try self.count()
        if noShard {
            if explicit != nil || countOption != nil { throw UsageError("--no-shard cannot go with --shard or --shards") }
            return nil
        }
        if let explicit {
            let shard = try Self.parse(explicit)
            if let count, count.value != shard.count {
                throw UsageError("--shard \(explicit) has \(shard.count) shards but \(count.name) says \(count.value)")
            }
            // Stated outright, it wins over the engine: `sbatch --array=1` to redo one task of four
            // sees a one-task array, and only `--shard 2/4` can say which shard that task was.
            return shard
        }
        guard batch else { return nil }
        if let engine = try engineShard(count: count?.value) { return engine }
        if let count, count.name == "--shards" {
            throw UsageError("--shards \(count.value) needs this shard's number: --shard K/\(count.value), or an engine's SLURM_ARRAY_TASK_ID, JOB_COMPLETION_INDEX or PARALLEL_SEQ")
        }
        return nil
    }

    /// `K/N` with 1 ≤ K ≤ N.
    static func parse(_ text: String) throws -> Shard {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let index = Int(parts[0]), let count = Int(parts[1]), count >= 1, (1...count).contains(index) else {
            throw UsageError("--shard needs K/N with whole numbers 1 ≤ K ≤ N (the first of four is 1/4), got '\(text)'")
        }
        return Shard(index: index, count: count, engine: "option", origin: "--shard \(text)")
    }

    /// The count from `--shards N`, else `IMAGEPIPE_SHARDS`, with the name it came from.
    private func count() throws -> (value: Int, name: String)? {
        if let countOption {
            guard let value = Int(countOption), value >= 1 else { throw UsageError("--shards needs a whole number ≥ 1, got '\(countOption)'") }
            return (value, "--shards")
        }
        if let text = environment["IMAGEPIPE_SHARDS"], !text.isEmpty {
            guard let value = Int(text), value >= 1 else { throw UsageError("IMAGEPIPE_SHARDS needs a whole number ≥ 1, got '\(text)'") }
            return (value, "IMAGEPIPE_SHARDS")
        }
        return nil
    }

    private func number(_ name: String) throws -> Int? {
        guard let text = environment[name] else { return nil }
        guard let value = Int(text) else { throw UsageError("\(name) should be a whole number, got '\(text)'") }
        return value
    }

    /// The shard the engine's variables name, or nil when no engine set any.
    private func engineShard(count: Int?) throws -> Shard? {
        if let id = try number("SLURM_ARRAY_TASK_ID") {
            guard let tasks = try number("SLURM_ARRAY_TASK_COUNT"), tasks >= 1 else {
                throw UsageError("SLURM_ARRAY_TASK_ID=\(id) is set without SLURM_ARRAY_TASK_COUNT; give --shard K/N")
            }
            let first = try number("SLURM_ARRAY_TASK_MIN") ?? 0
            let step = max(1, try number("SLURM_ARRAY_TASK_STEP") ?? 1)
            var origin = "Slurm: SLURM_ARRAY_TASK_ID=\(id), SLURM_ARRAY_TASK_MIN=\(first), SLURM_ARRAY_TASK_COUNT=\(tasks)"
            if step != 1 { origin += ", SLURM_ARRAY_TASK_STEP=\(step)" }
            let offset = id - first
            guard offset >= 0, offset % step == 0, offset / step < tasks else {
                throw UsageError("the Slurm array's task ids are not one regular range (\(origin)); give --shard K/N")
            }
            if let count, count != tasks {
                throw UsageError("the number of shards (\(count)) does not match the Slurm array's \(tasks) tasks (\(origin))")
            }
            return Shard(index: offset / step + 1, count: tasks, engine: "slurm", origin: origin)
        }
        if let index = try number("JOB_COMPLETION_INDEX") {
            guard let count else {
                throw UsageError("JOB_COMPLETION_INDEX=\(index) is set but not the number of shards: give --shards N (the Job's completions) or IMAGEPIPE_SHARDS, or --no-shard")
            }
            guard (0..<count).contains(index) else {
                throw UsageError("JOB_COMPLETION_INDEX=\(index) is outside the \(count) shards: the Job's completions should equal --shards (indexes 0…\(count - 1))")
            }
            return Shard(index: index + 1, count: count, engine: "kubernetes", origin: "Kubernetes: JOB_COMPLETION_INDEX=\(index), \(count) shards")
        }
        if let sequence = try number("PARALLEL_SEQ"), let count {
            guard (1...count).contains(sequence) else {
                throw UsageError("PARALLEL_SEQ=\(sequence) is outside the \(count) shards: give parallel as many jobs as shards")
            }
            return Shard(index: sequence, count: count, engine: "parallel", origin: "GNU parallel: PARALLEL_SEQ=\(sequence), \(count) shards")
        }
        return nil
    }
}
