/// One source, transforms in the written order, one sink.
public struct Pipeline: Sendable {
    public var source: any ImageSource
    public var transforms: [any Transform]
    public var sink: any Sink
    /// Where each stage was written (source, transforms…, sink); nil for stages made in code.
    public var locations: [SourceLocation?]

    public init(source: any ImageSource = Load(), transforms: [any Transform] = [], sink: any Sink = Save(),
                locations: [SourceLocation?]? = nil) {
        self.source = source
        self.transforms = transforms
        self.sink = sink
        self.locations = locations ?? Array(repeating: nil, count: transforms.count + 2)
        precondition(self.locations.count == transforms.count + 2, "one location per stage")
    }

    /// Every stage in order.
    public var stages: [any Stage] { [source] + transforms + [sink] }

    /// The canonical text, one stage a line; it compiles back to an equal pipeline.
    public var text: String { stages.map(\.text).joined(separator: "\n") }

    /// Each stage checked as the language checks what it reads (`Stage.validate()`): a stage
    /// made in code with values the language refuses is refused here, before any work.
    public func validate() throws(ArgumentError) {
        for stage in stages {
            try stage.validate()
            for group in (stage as? Branch)?.groups ?? [] { try group.validate() }
        }
    }

    /// Each stage's geometry for a source of the given size, without touching pixels.
    public func plan(sourceSize: Size) throws -> Plan {
        try validate()
        var steps: [Plan.Step] = []
        var size = sourceSize
        for (index, transform) in transforms.enumerated() {
            let output: Size, held: Int
            do {
                output = try transform.outputSize(for: size)
                if let broken = transform.stageClass.brokenPromise(planning: output, from: size) { throw StageError(broken) }
                held = try transform.heldBytes(for: size)
            } catch let error as StageError {
                throw located(error, stage: index + 1)
            }
            steps.append(Plan.Step(stage: transform, input: size, output: output, held: max(0, held)))
            size = output
        }
        // A branch's groups are planned too, so that a group's impossible geometry is refused
        // before any of the run's outputs is written.
        let groups = try (sink as? Branch)?.groups.map { try $0.plan(sourceSize: size) } ?? []
        return Plan(sourceSize: sourceSize, steps: steps, groups: groups)
    }

    /// The plan for the source this context names, from its header alone. When the first
    /// transform only shrinks and the source can decode reduced, the plan decodes at the
    /// smallest size that still gives that transform full quality (unless the context's load
    /// options turn shrink-on-load off).
    public func plan(in context: RunContext) throws -> Plan {
        try prepare(in: context).plan
    }

    /// The source's header and the plan, for `run(in:prepared:)`.
    public func prepare(in context: RunContext) throws -> PreparedRun {
        let description = try withLocation(stage: 0) { try source.describe(in: context) }
        let options = source.loadOptions(in: context)
        // Planning sees the limits the stages will run with (a text stage refuses a caption too large).
        var limits = StageContext.current
        limits.maxPixels = options.maxPixels
        limits.loadOptions = options
        let full = try limits.bound { try plan(sourceSize: description.size) }
        if let limit = options.maxPixels, limit > 0 {
            // The same limit holds for what stages make: a typo like fit 100000x100000 must not
            // exhaust memory.
            for (index, step) in full.steps.enumerated() where step.output.pixelCount > limit {
                throw located(StageError("would make a \(step.output) picture (\(step.output.pixelCount) pixels), more than the limit of \(limit)", remedy: .raisePixelLimit), stage: index + 1)
            }
            if let step = full.groups.flatMap(\.allSteps).first(where: { $0.output.pixelCount > limit }) {
                throw located(StageError("\(step.stage.text) in a group would make a \(step.output) picture (\(step.output.pixelCount) pixels), more than the limit of \(limit)", remedy: .raisePixelLimit),
                              stage: transforms.count + 1)
            }
        }
        // A JPEG past 65,500 pixels on a side fails in libjpeg, after all the work: refused here.
        try checkOutputSizes(full, in: context)
        let unreduced = Plan(sourceSize: full.sourceSize, steps: full.steps, scaling: options.scaling, groups: full.groups)
        if let animation = try animationPlan(for: description, in: context) {
            // Frames decode whole: no shrink-on-load.
            return PreparedRun(description: description, plan: unreduced, animation: animation)
        }
        guard options.shrinkOnLoad, let headroom = options.scaling.decodeHeadroom, let first = transforms.first,
              let needed = try withLocation(stage: 1, { try first.shrinkOnLoad?.reducedInput(for: description.size) }) else {
            return PreparedRun(description: description, plan: try readingRegion(unreduced, description: description, in: context))
        }
        // Headroom: the kernel then has real pixels to filter, not the DCT's box average.
        let wanted = Size(min(description.size.width, needed.width * headroom), min(description.size.height, needed.height * headroom))
        let reduced = description.reducedSize(atLeast: wanted)
        if reduced == description.size, let resampling = try withLocation(stage: 1, { try first.shrinkOnLoad?.wholeResampling(for: description.size) }),
           source is Load, description.header?.resamplesInPlanes == true {
            // The decoder does the stage's work in the JPEG's planes (the stage then passes its
            // decode on): the chroma planes are filtered at their own size, the colors made once.
            // Only for a full decode: reduced in the DCT, libjpeg makes 4:2:0's chroma as large
            // as the luma, and what is left to resample is small (the planes took 3 % less CPU
            // than RGB after a 1/2 reduction in `good`, 4 to 21 % more after `fast`'s).
            let decided = WholeResampling(size: resampling.size, kernel: resampling.kernel ?? options.scaling.defaultKernel)
            return PreparedRun(description: description, plan: Plan(sourceSize: full.sourceSize, steps: full.steps, decodeSize: resampling.size,
                                                                    decodeAtLeast: wanted, scaling: options.scaling, groups: full.groups,
                                                                    decodeResampling: decided))
        }
        guard reduced != description.size else {
            return PreparedRun(description: description, plan: try readingRegion(unreduced, description: description, in: context))
        }
        let shrinking = Plan(sourceSize: full.sourceSize, steps: full.steps, decodeSize: reduced, decodeAtLeast: wanted, scaling: options.scaling,
                             groups: full.groups)
        return PreparedRun(description: description, plan: try readingRegion(shrinking, description: description, in: context))
    }

    /// `plan` with the rectangle of the decode its first stage reads, when that is less than the
    /// decode (`RegionOnLoadStage`: a crop, a resize of a region): a picture decoded as stored
    /// (no orientation to turn), not traced (the trace shows the decode).
    private func readingRegion(_ plan: Plan, description: SourceDescription, in context: RunContext) throws -> Plan {
        guard source is Load, context.trace == nil, description.orientation == 1, let first = transforms.first as? any RegionOnLoadStage,
              first.stageClass == .resample, let output = plan.steps.first?.output else { return plan }
        let decoded = plan.decodeSize
        let input = Self.reduction(plan: plan, description: description) ?? .none(decoded)
        let (rows, columns) = try withLocation(stage: 1) {
            (try first.inputRows(forOutput: 0..<output.height, of: input), try first.inputColumns(of: input))
        }
        let region = Rect(x: columns.lowerBound, y: rows.lowerBound, width: columns.count, height: rows.count)
        guard region.x >= 0, region.y >= 0, region.width > 0, region.height > 0, region.x + region.width <= decoded.width,
              region.y + region.height <= decoded.height, region.size != decoded else { return plan }
        var reading = plan
        reading.decodeRegion = region
        reading.decodeTouchesRegionOnly = description.decodesRegions && description.header?.rowsInOrder == true
        return reading
    }

    /// Applies the transforms to an image in memory and returns the result, resampling as
    /// `scaling` says. It writes nothing, so a pipeline that names files to write (`tee PATH`,
    /// `save PATH`) is refused rather than silently not written: call `run(in:)` to write them,
    /// or `applyTransforms(to:)` to mean "the transforms only".
    public func apply(to image: Image, scaling: ScalingMode = .good) throws -> Image {
        try apply(to: image, in: StageContext.current.scaling(scaling))
    }

    /// `apply(to:scaling:)` in the context given: its scaling mode, pixel limit and
    /// cancellation reach every stage (a cancelled context stops the work between rows).
    public func apply(to image: Image, in context: StageContext) throws -> Image {
        let writes = stages.dropFirst().filter { stage in
            stage is Tee || stage is Branch || (stage as? Save)?.path != nil
        }
        guard writes.isEmpty else {
            throw StageError("this pipeline writes files (\(writes.map(\.text).joined(separator: ", "))), and apply(to:) writes nothing: use run(in:) to write them, or applyTransforms(to:) for the transforms alone")
        }
        return try applyTransforms(to: image, in: context)
    }

    /// The transforms alone on an image in memory: `tee` passes the picture on without
    /// writing, and the sink is not used.
    public func applyTransforms(to image: Image, scaling: ScalingMode = .good) throws -> Image {
        try applyTransforms(to: image, in: StageContext.current.scaling(scaling))
    }

    /// `applyTransforms(to:scaling:)` in the context given.
    public func applyTransforms(to image: Image, in context: StageContext) throws -> Image {
        try validate()
        return try context.bound {
            try transform(ReducedImage(image), context: nil, observe: nil).image
        }
    }

    /// Every file the run will write for this context (tees, then the sink), before any work.
    public func outputs(in context: RunContext) throws -> [String] {
        var paths: [String] = []
        for (index, stage) in stages.enumerated().dropFirst() {
            if let writer = stage as? any Sink { paths += try withLocation(stage: index) { try writer.destinations(in: context) } }
        }
        return paths
    }

    /// Plans (unless `prepared` holds the plan for this context), decodes, transforms and
    /// writes. `observe` sees the image after every stage (for traces); it may throw to stop
    /// the run. Without an observer, a run may stream (`streams(in:)`).
    @discardableResult
    public func run(in context: RunContext, prepared: PreparedRun? = nil, observe: ((StageEvent) throws -> Void)? = nil) throws -> RunResult {
        try run(in: context, prepared: prepared, writing: true, observe: observe)
    }

    /// Plans, decodes and transforms as `run(in:)` does, but writes nothing (`tee` and the sink
    /// are passed over): for what the stages decide from the pixels (`explain --pixels`).
    public func dryRun(in context: RunContext) throws -> RunResult {
        try run(in: context, prepared: nil, writing: false, observe: nil)
    }

    private func run(in context: RunContext, prepared: PreparedRun?, writing: Bool, observe: ((StageEvent) throws -> Void)?) throws -> RunResult {
        // Every output goes through one gate, so that a failure takes back what a `tee` wrote.
        var context = context
        let gate = context.outputGate ?? OutputGate()
        context.outputGate = gate
        do {
            return try runGated(in: context, prepared: prepared, writing: writing, observe: observe)
        } catch {
            gate.withdraw()
            throw error
        }
    }

    private func runGated(in context: RunContext, prepared: PreparedRun?, writing: Bool, observe: ((StageEvent) throws -> Void)?) throws -> RunResult {
        var stageContext = StageContext(cancellation: context.cancellation)
        let prepared = try prepared ?? stageContext.bound { try prepare(in: context) }
        try context.cancellation?.check(path: context.input)
        // The stages work in the run's scaling mode (a resize's kernel) and with its limits, in
        // the ordinary run and the streamed one alike.
        let loadOptions = source.loadOptions(in: context)
        stageContext.scaling = prepared.plan.scaling
        stageContext.maxPixels = loadOptions.maxPixels
        stageContext.loadOptions = loadOptions
        let (warned, warnedGroups) = warningNotes()
        for note in (warned.values.joined() + warnedGroups.values.flatMap { $0.values.joined() }) { context.warn(note.text) }
        var result = try stageContext.bound { try runPlanned(in: context, prepared: prepared, writing: writing, observe: observe) }
        result.notes.merge(warned) { decided, warnings in warnings + decided }
        for (path, notes) in warnedGroups { result.groupNotes[path, default: [:]].merge(notes) { decided, warnings in warnings + decided } }
        return result
    }

    /// The stages' warnings (`Stage.warnings`) as notes, by place, here and in the groups of a
    /// branch (by path, as `RunResult.groupNotes`).
    func warningNotes(path: [Int] = []) -> (notes: [Int: [StageNote]], groups: RunResult.GroupNotes) {
        var notes: [Int: [StageNote]] = [:], groups: RunResult.GroupNotes = [:]
        for (index, stage) in stages.enumerated() where !stage.warnings.isEmpty {
            notes[index] = stage.warnings.map { StageNote(name: "warning", text: "\(stage.stageSchema.name): \($0)", value: .string($0)) }
        }
        for (offset, group) in ((sink as? Branch)?.groups ?? []).enumerated() {
            let inner = group.warningNotes(path: path + [offset + 1])
            if !inner.notes.isEmpty { groups[path + [offset + 1]] = inner.notes }
            groups.merge(inner.groups) { _, later in later }
        }
        return (notes, groups)
    }

    private func runPlanned(in context: RunContext, prepared: PreparedRun, writing: Bool, observe: ((StageEvent) throws -> Void)?) throws -> RunResult {
        // A trace sees the pictures of runs that make them (the lossless JPEG paths make none).
        let traced = observe ?? context.trace?.observer
        if let animation = prepared.animation {
            return try runAnimated(animation, in: context, prepared: prepared, writing: writing, observe: traced)
        }
        guard writing else { return try runDecoding(in: context, prepared: prepared, writing: writing, observe: observe) }
        let clock = ContinuousClock()
        let start = clock.now
        let attempt = try runLosslessJPEGIfAsked(in: context, prepared: prepared, observed: traced != nil)
        if case let .written(result) = attempt { return result }
        if let result = try runJPEGRecompressionIfAsked(in: context, prepared: prepared, observed: traced != nil) { return result }
        // Encoded anew: a JPEG whose pixels are only moved keeps the input's settings, and a
        // lossless write that could not be exact says why.
        guard case let .encodeAnew(inexact, bytes) = attempt else { preconditionFailure("a written attempt returned above") }
        let kept = keptJPEGEncoding(in: context, prepared: prepared, bytes: bytes)
        let note = keptEncodingNote(kept, inexact: inexact, in: context)
        var result = try (kept.map(encoding(at:)) ?? self).runDecoding(in: context, prepared: prepared, writing: writing, observe: observe, since: start)
        if let note { result.notes[transforms.count + 1, default: []].insert(note, at: 0) }
        return result
    }

    /// The run that decodes the picture (`since`: when the run started, for the source's time in
    /// a trace), transforms it and, when `writing`, encodes it with the sink.
    private func runDecoding(in context: RunContext, prepared: PreparedRun, writing: Bool, observe: ((StageEvent) throws -> Void)?,
                             since start: ContinuousClock.Instant = ContinuousClock.now) throws -> RunResult {
        let (description, plan) = (prepared.description, prepared.plan)
        let clock = ContinuousClock()
        let image: Image
        // An observer of whole pictures takes the run of whole pictures; a trace observes either
        // (a streamed run writes its pictures as their rows pass).
        let streamed = writing && observe == nil ? streamingSave(in: context, prepared: prepared) : nil
        let observe = observe ?? (writing ? context.trace?.observer : nil)
        if let streamed {
            switch try runStreamed(streamed, in: context, prepared: prepared) {
            case let .written(result): return result
            case let .declined(decoded): image = decoded
            }
        } else {
            image = try withLocation(stage: 0) {
                try context.codecTime.decoding {
                    if let load = source as? Load, plan.decodeResampling != nil || plan.decodeRegion != nil {
                        return try load.load(in: context, description: description, atLeast: plan.decodeAtLeast, resampling: plan.decodeResampling,
                                             region: plan.decodeRegion)
                    }
                    return try source.load(in: context, description: description, atLeast: plan.decodeAtLeast)
                }
            }
        }
        try observe?(StageEvent(index: 0, stage: source, image: image, seconds: (clock.now - start).inSeconds,
                                standsFor: image.size == plan.sourceSize ? nil : plan.sourceSize))
        let decoded = ReducedImage(image: image, fullSize: plan.sourceSize, mapping: plan.mapping(toDecoded: image.size, description: description))
        let (result, outputs, notes) = try transform(decoded, context: writing ? context : nil, observe: observe)
        guard writing else {
            return RunResult(plan: plan, written: [], outputSize: result.size, notes: notes, groupNotes: try groupNotesWithoutWriting(on: result, path: []))
        }
        let written = try context.codecTime.encoding { _ in
            try write(result, in: context, emit: observe, observe: observe, numbering: EventNumbering(next: transforms.count + 2), path: [])
        }
        return RunResult(plan: plan, written: outputs + written.files, outputSize: result.size, notes: notes, groupNotes: written.groupNotes)
    }

    /// A branch's group on the picture at the branch: its stages, then its save (or branch).
    /// With `observe`, each stage's event is numbered on from `numbering` and names its group
    /// (the one at `path`); what its stages (and those of groups under it) note is under `path`.
    func runGroup(on image: Image, in context: RunContext, observe: ((StageEvent) throws -> Void)? = nil,
                  numbering: EventNumbering = EventNumbering(next: 0), path: [Int] = []) throws -> (files: [WrittenFile], groupNotes: RunResult.GroupNotes) {
        let relabel = numbering.relabeling(observe, group: path)
        let (result, outputs, notes) = try transform(ReducedImage(image), context: context, observe: relabel)
        var (files, groupNotes) = try write(result, in: context, emit: relabel, observe: observe, numbering: numbering, path: path)
        if !notes.isEmpty { groupNotes[path] = notes }
        return (outputs + files, groupNotes)
    }

    /// What the stages of the sink's groups (and of groups under them) note, run on `image`
    /// without writing anything: a dry run's. `path` is this pipeline's own ([] the outermost).
    func groupNotesWithoutWriting(on image: Image, path: [Int]) throws -> RunResult.GroupNotes {
        guard let branch = sink as? Branch else { return [:] }
        var all: RunResult.GroupNotes = [:]
        for (offset, pipeline) in branch.groups.enumerated() {
            let (result, _, notes) = try pipeline.transform(ReducedImage(image), context: nil, observe: nil)
            if !notes.isEmpty { all[path + [offset + 1]] = notes }
            all.merge(try pipeline.groupNotesWithoutWriting(on: result, path: path + [offset + 1])) { _, later in later }
        }
        return all
    }

    /// The sink's part: a branch runs its groups (after its own event, so that a trace reads as
    /// the tree; theirs numbered on from `numbering`, under the group at `path`), any other sink writes once.
    /// `emit` hears of the sink as this pipeline numbers it, `observe` of every group's stages.
    /// Gives the files written and what the groups' stages noted.
    func write(_ result: Image, in context: RunContext, emit: ((StageEvent) throws -> Void)?, observe: ((StageEvent) throws -> Void)?,
                       numbering: EventNumbering, path: [Int]) throws -> (files: [WrittenFile], groupNotes: RunResult.GroupNotes) {
        let end = transforms.count + 1
        if let branch = sink as? Branch {
            try emit?(StageEvent(index: end, stage: sink, image: result, seconds: 0))
            return try withLocation(stage: end) { try branch.writeAll(result, in: context, observe: observe, numbering: numbering, path: path) }
        }
        let clock = ContinuousClock(), start = clock.now
        let written = try withLocation(stage: end) { try sink.write(result, in: context) }
        try emit?(StageEvent(index: end, stage: sink, image: result, seconds: (clock.now - start).inSeconds))
        return ([WrittenFile(path: written, size: result.size)], [:])
    }

    /// Numbers the events of a branch's groups on after the pipeline's own stages.
    final class EventNumbering {
        private var next: Int
        init(next: Int) { self.next = next }
        func take() -> Int {
            defer { next += 1 }
            return next
        }

        /// `observe` hearing the events of the group at `path`: numbered on, and naming the group.
        func relabeling(_ observe: ((StageEvent) throws -> Void)?, group path: [Int]) -> ((StageEvent) throws -> Void)? {
            let label = Branch.label(of: path)
            return observe.map { observe in
                { event in
                    try observe(StageEvent(index: self.take(), stage: event.stage, image: event.image, seconds: event.seconds,
                                           notes: event.notes, group: label))
                }
            }
        }
    }

    /// What an animated run does with a tee's frame (its stage's index, the tee, the frame as the
    /// tee sees it), in place of writing it.
    typealias TeeFrame = (Int, Tee, Image) throws -> Void

    /// The transforms in order; with a context, `tee` stages write as they pass, else with
    /// `teeFrame` they hand their frame to it. `source` may be a reduced decode
    /// (shrink-on-load): the first transform then maps its geometry onto it.
    func transform(_ source: ReducedImage, context: RunContext?, observe: ((StageEvent) throws -> Void)?,
                   teeFrame: TeeFrame? = nil) throws -> (image: Image, outputs: [WrittenFile], notes: [Int: [StageNote]]) {
        let clock = ContinuousClock()
        var current = source.image
        var outputs: [WrittenFile] = []
        var notes: [Int: [StageNote]] = [:]
        for (offset, transform) in transforms.enumerated() {
            let index = offset + 1
            let start = clock.now
            FrameDecisions.current?.enter(stage: index)
            try context?.cancellation?.check(path: context?.input)
            let stageNotes: [StageNote]
            (current, stageNotes) = try withLocation(stage: index) {
                let input = index == 1 ? source : ReducedImage(current)
                let expected = try transform.outputSize(for: input.fullSize)
                let (result, stageNotes) = try StageNote.collecting {
                    input.isFull ? try transform.apply(to: current) : try transform.apply(to: input)
                }
                let fits = transform.outputSizeIsUpperBound
                    ? result.size.width <= expected.width && result.size.height <= expected.height : result.size == expected
                guard fits else {
                    let said = transform.outputSizeIsUpperBound ? "at most \(expected)" : "\(expected)"
                    throw StageError("produced \(result.size) where its plan said \(said) (a bug in the stage)")
                }
                // Stages make new images without metadata; the profile and EXIF still describe them.
                var metadata = result.metadata.isEmpty ? current.metadata : result.metadata
                // A stage that passed the picture on as it was (tee) leaves it as gray as it was.
                if result !== current { metadata.grayOnly = transform.makesGray }
                let carried = metadata == result.metadata ? result : result.withMetadata(metadata)
                if let context, let writer = transform as? any Sink {
                    outputs.append(WrittenFile(path: try writer.write(carried, in: context), size: carried.size))
                } else if let teeFrame, let tee = transform as? Tee {
                    try teeFrame(index, tee, carried)
                }
                return (carried, stageNotes)
            }
            // A stage's loops leave their rows unmade once the run is stopped: never pass that on.
            try StageContext.current.cancellation?.check(path: context?.input)
            if !stageNotes.isEmpty { notes[index] = stageNotes }
            try observe?(StageEvent(index: index, stage: transform, image: current, seconds: (clock.now - start).inSeconds, notes: stageNotes))
        }
        return (current, outputs, notes)
    }


    /// Runs `body`, giving a `StageError` the stage's name and location.
    func withLocation<T>(stage index: Int, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as StageError {
            throw located(error, stage: index)
        }
    }

    func located(_ error: StageError, stage index: Int) -> PipelineError {
        PipelineError(stage: stages[index].stageSchema.name, location: locations[index], message: error.message, remedy: error.remedy)
    }
}
