/// The files one pipeline writes while an animation goes through it a frame at a time: the run's
/// own pipeline, or a branch's group, which has outputs of its own. Each `tee` and the `save`
/// get an animation encoder, made at the first frame; a `branch` hands each frame, as it reaches
/// the branch, to its groups. Every file is finished before any is written.
final class AnimationOutputs {
    /// One animation being made: the `save` that writes it (a tee's, or the sink) and its encoder.
    private struct File {
        let stage: Int
        let save: Save
        let path: String
        let size: Size
        let encoder: any AnimationEncoder
    }

    private let pipeline: Pipeline
    /// The group's place under the branches (`Branch.label`); [] for the run's own pipeline.
    private let path: [Int]
    /// The decoder's loop count, read when the first file is made: a GIF's comes with its first
    /// frame, not in the header.
    private let plays: () -> Int?
    /// Whether the files are made at all: a dry run only runs the stages.
    private let writing: Bool
    /// A group's stages decide on the first frame that reaches them, apart from the stages
    /// before the branch (`FrameDecisions` are keyed by stage index within one pipeline).
    private let decisions = FrameDecisions()
    private var files: [Int: File] = [:]
    private let groups: [AnimationOutputs]
    /// What this pipeline's stages noted on the first frame.
    private(set) var notes: [Int: [StageNote]] = [:]

    init(_ pipeline: Pipeline, path: [Int] = [], plays: @escaping () -> Int?, writing: Bool) {
        self.pipeline = pipeline
        self.path = path
        self.plays = plays
        self.writing = writing
        groups = (pipeline.sink as? Branch)?.groups.enumerated().map { offset, group in
            AnimationOutputs(group, path: path + [offset + 1], plays: plays, writing: writing)
        } ?? []
    }

    /// What the groups' stages noted on the first frame, by group.
    var groupNotes: RunResult.GroupNotes {
        var all: RunResult.GroupNotes = [:]
        for group in groups {
            if !group.notes.isEmpty { all[group.path] = group.notes }
            all.merge(group.groupNotes) { _, later in later }
        }
        return all
    }

    /// Runs one frame (as this pipeline's source gives it) through the stages, adding it to every
    /// file on the way; gives the picture the stages made. A trace shows the first frame: `emit`
    /// hears of this pipeline's stages, `observe` (numbered on by `numbering`) of its groups'.
    func add(_ frame: Image, delay: Int, first: Bool, in context: RunContext, emit: ((StageEvent) throws -> Void)?,
             observe: ((StageEvent) throws -> Void)?, numbering: Pipeline.EventNumbering) throws -> Image {
        let (emit, observe) = first ? (emit, observe) : (nil, nil)
        var framed = StageContext.current
        framed.frameDecisions = decisions
        return try framed.bound {
            let made = try pipeline.transform(ReducedImage(frame), context: nil, observe: emit) { stage, tee, image in
                try self.add(image, delay: delay, to: tee.save, at: stage, in: context)
            }
            if first { notes = made.notes }
            let end = pipeline.transforms.count + 1
            try emit?(StageEvent(index: end, stage: pipeline.sink, image: made.image, seconds: 0))
            if let save = pipeline.sink as? Save {
                try add(made.image, delay: delay, to: save, at: end, in: context)
            }
            for group in groups {
                _ = try pipeline.withLocation(stage: end) {
                    try group.add(made.image, delay: delay, first: first, in: context, emit: numbering.relabeling(observe, group: group.path),
                                  observe: observe, numbering: numbering)
                }
            }
            return made.image
        }
    }

    private func add(_ image: Image, delay: Int, to save: Save, at stage: Int, in context: RunContext) throws {
        guard writing else { return }
        if files[stage] == nil {
            let (path, format) = try pipeline.withLocation(stage: stage) { try save.target(in: context) }
            if let loop = save.options.loop, let refusal = Codecs.of(format).loopRefusal(loop) { throw pipeline.located(StageError(refusal), stage: stage) }
            guard let encoder = AnimationEncoding.encoder(for: format, options: save.options, plays: save.options.loop ?? plays()) else {
                throw pipeline.located(StageError("\(format.rawValue.uppercased()) holds one picture"), stage: stage)
            }
            files[stage] = File(stage: stage, save: save, path: path, size: image.size, encoder: encoder)
        }
        guard let file = files[stage] else { return }
        try encoding(file) { try file.encoder.add(image, delay: save.options.delay ?? delay) }
    }

    /// Finishes every file, this pipeline's and its groups', then writes them in that order. A
    /// file that cannot be written takes back those written before it (`OutputGate`).
    func write(in context: RunContext) throws -> [WrittenFile] {
        let finished = try finish()
        try context.cancellation?.check(path: context.input)
        return try finished.map { outputs, file, bytes in
            let stored = try outputs.pipeline.withLocation(stage: file.stage) { try file.save.store(bytes, at: file.path, in: context) }
            return WrittenFile(path: stored, size: file.size)
        }
    }

    private func finish() throws -> [(AnimationOutputs, File, ByteChunks)] {
        let own = try files.values.sorted { $0.stage < $1.stage }.map { file in (self, file, try encoding(file) { try file.encoder.finish() }) }
        return try own + groups.flatMap { try $0.finish() }
    }

    /// An encoder's error names its stage and the file it was writing.
    private func encoding<T>(_ file: File, _ body: () throws -> T) throws -> T {
        try pipeline.withLocation(stage: file.stage) {
            do { return try body() } catch var error as ImageError {
                error.path = error.path ?? file.path
                throw error
            }
        }
    }
}
