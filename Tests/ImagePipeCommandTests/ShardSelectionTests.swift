import ImagePipe
import Testing
@testable import ImagePipeCommand

/// Which shard a run takes, from `--shard`, `--shards` and each engine's variables.
@Suite struct ShardSelectionTests {
    private func resolve(_ explicit: String? = nil, count: String? = nil, noShard: Bool = false,
                         batch: Bool = true, env environment: [String: String] = [:]) throws -> Shard? {
        try ShardSelection(explicit: explicit, countOption: count, noShard: noShard, environment: environment).resolve(batch: batch)
    }

    private func message(_ body: () throws -> Shard?) -> String {
        do {
            _ = try body()
            return "no error"
        } catch { return "\(error)" }
    }

    @Test func everyInputFallsInExactlyOneShard() {
        for count in 1...7 {
            for position in 0..<50 {
                let owners = (1...count).filter { Shard(index: $0, count: count, engine: "option", origin: "").contains(position: position) }
                #expect(owners == [position % count + 1])
            }
            for total in 0..<30 {
                let shares = (1...count).map { Shard.share(of: total, in: Shard(index: $0, count: count, engine: "option", origin: "")) }
                #expect(shares.reduce(0, +) == total)
                #expect(shares.max()! - shares.min()! <= 1, "dealt in turn, the shares differ by one at most")
            }
        }
    }

    @Test func explicitShard() throws {
        #expect(try resolve("2/4") == Shard(index: 2, count: 4, engine: "option", origin: "--shard 2/4"))
        #expect(try resolve("1/1")?.name == "shard-1-of-1")
        for bad in ["0/4", "5/4", "2", "2/0", "a/b", "2/4/1", "-1/4", ""] {
            #expect(message { try resolve(bad) } == "--shard needs K/N with whole numbers 1 ≤ K ≤ N (the first of four is 1/4), got '\(bad)'")
        }
        #expect(message { try resolve("2/4", count: "8") } == "--shard 2/4 has 4 shards but --shards says 8")
        #expect(message { try resolve("2/4", noShard: true) } == "--no-shard cannot go with --shard or --shards")
        // Stated outright it wins: `sbatch --array=1` to redo the second of four tasks.
        let redo = try resolve("2/4", env: ["SLURM_ARRAY_TASK_ID": "1", "SLURM_ARRAY_TASK_MIN": "1", "SLURM_ARRAY_TASK_COUNT": "1"])
        #expect(redo?.index == 2 && redo?.count == 4)
        // An explicit shard splits a single input too (it is the only shard that has it).
        #expect(try resolve("2/4", batch: false)?.index == 2)
    }

    @Test func slurmArrays() throws {
        let shard = try resolve(env: ["SLURM_ARRAY_TASK_ID": "5", "SLURM_ARRAY_TASK_MIN": "4", "SLURM_ARRAY_TASK_COUNT": "4"])
        #expect(shard?.index == 2 && shard?.count == 4 && shard?.engine == "slurm")
        #expect(shard?.origin == "Slurm: SLURM_ARRAY_TASK_ID=5, SLURM_ARRAY_TASK_MIN=4, SLURM_ARRAY_TASK_COUNT=4")
        // --array=0-6:2 is four tasks: 0, 2, 4, 6.
        let stepped = ["SLURM_ARRAY_TASK_ID": "6", "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_COUNT": "4", "SLURM_ARRAY_TASK_STEP": "2"]
        #expect(try resolve(env: stepped)?.index == 4)
        // --array=1,3,9: three tasks that are no regular range.
        let irregular = ["SLURM_ARRAY_TASK_ID": "9", "SLURM_ARRAY_TASK_MIN": "1", "SLURM_ARRAY_TASK_COUNT": "3", "SLURM_ARRAY_TASK_STEP": "1"]
        #expect(message { try resolve(env: irregular) }.hasPrefix("the Slurm array's task ids are not one regular range"))
        let slurm = ["SLURM_ARRAY_TASK_ID": "0", "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_COUNT": "4"]
        #expect(message { try resolve(count: "8", env: slurm) } == "the number of shards (8) does not match the Slurm array's 4 tasks (Slurm: SLURM_ARRAY_TASK_ID=0, SLURM_ARRAY_TASK_MIN=0, SLURM_ARRAY_TASK_COUNT=4)")
        #expect(try resolve(count: "4", env: slurm)?.index == 1)
        #expect(message { try resolve(env: ["SLURM_ARRAY_TASK_ID": "3"]) } == "SLURM_ARRAY_TASK_ID=3 is set without SLURM_ARRAY_TASK_COUNT; give --shard K/N")
        // One picture per task (`in-$SLURM_ARRAY_TASK_ID.jpg`) is not split, and --no-shard opts out.
        #expect(try resolve(batch: false, env: slurm) == nil)
        #expect(try resolve(noShard: true, env: slurm) == nil)
    }

    @Test func kubernetesIndexedJobs() throws {
        let shard = try resolve(count: "4", env: ["JOB_COMPLETION_INDEX": "0"])
        #expect(shard?.index == 1 && shard?.count == 4 && shard?.engine == "kubernetes")
        #expect(try resolve(env: ["JOB_COMPLETION_INDEX": "3", "IMAGEPIPE_SHARDS": "4"])?.index == 4)
        #expect(message { try resolve(env: ["JOB_COMPLETION_INDEX": "2"]) } == "JOB_COMPLETION_INDEX=2 is set but not the number of shards: give --shards N (the Job's completions) or IMAGEPIPE_SHARDS, or --no-shard")
        #expect(message { try resolve(count: "4", env: ["JOB_COMPLETION_INDEX": "4"]) } == "JOB_COMPLETION_INDEX=4 is outside the 4 shards: the Job's completions should equal --shards (indexes 0…3)")
        #expect(message { try resolve(env: ["JOB_COMPLETION_INDEX": "x", "IMAGEPIPE_SHARDS": "4"]) } == "JOB_COMPLETION_INDEX should be a whole number, got 'x'")
        #expect(message { try resolve(env: ["JOB_COMPLETION_INDEX": "1", "IMAGEPIPE_SHARDS": "four"]) } == "IMAGEPIPE_SHARDS needs a whole number ≥ 1, got 'four'")
    }

    @Test func gnuParallel() throws {
        #expect(try resolve(count: "3", env: ["PARALLEL_SEQ": "3"]) == Shard(index: 3, count: 3, engine: "parallel", origin: "GNU parallel: PARALLEL_SEQ=3, 3 shards"))
        // parallel sets PARALLEL_SEQ for every job; without a count it is not a shard.
        #expect(try resolve(env: ["PARALLEL_SEQ": "7"]) == nil)
        #expect(message { try resolve(count: "3", env: ["PARALLEL_SEQ": "4"]) } == "PARALLEL_SEQ=4 is outside the 3 shards: give parallel as many jobs as shards")
        // Slurm comes first when a task runs parallel inside it.
        #expect(try resolve(count: "2", env: ["PARALLEL_SEQ": "1", "SLURM_ARRAY_TASK_ID": "1", "SLURM_ARRAY_TASK_COUNT": "2"])?.engine == "slurm")
    }

    @Test func aCountAloneIsNotAShard() throws {
        #expect(message { try resolve(count: "4") } == "--shards 4 needs this shard's number: --shard K/4, or an engine's SLURM_ARRAY_TASK_ID, JOB_COMPLETION_INDEX or PARALLEL_SEQ")
        #expect(message { try resolve(count: "0") } == "--shards needs a whole number ≥ 1, got '0'")
        #expect(try resolve(env: ["IMAGEPIPE_SHARDS": "4"]) == nil, "a count in the environment alone splits nothing")
    }
}
