/// The streamed run: the picture decoded on a thread of its own while this one puts each strip
/// of rows through the stages and into the encoder as soon as it is decoded, so that decoding
/// and encoding, which are most of a tone stage's run, take both cores at once (libvips streams
/// the same way). It applies when the pixels need nothing but strip-by-strip work between the
/// two: a decoder that hands out rows in order (`RowSource`: JPEG, TIFF, and JPEG reduced in
/// the DCT for a first stage that works on such rows), stages whose class `StripChain` can pull
/// strips through (point, area, resample, and turns through a tile cache, the picture's own
/// orientation first), and an encoder that takes rows in order (`RowEncoding`: JPEG, TIFF,
/// PNG) with no profile conversion on the way. The decode goes into a ring of rows that the decoder rewrites as the
/// stages let go of them, so a 300-megapixel picture holds some 4 MiB of rows, not a gigabyte.
/// The pixels are the same as the ordinary run's, byte for byte (StreamedRunTests).
extension Pipeline {
    /// Rows the stages see at a time (the last strip may be shorter): enough that a strip's fixed
    /// costs (a view, a wait) vanish, few enough that the encoder starts soon after the decoder.
    public static let streamedStripRows = 32

    /// Whether `run(in:prepared:)` will stream this input (a file found out only once its decode
    /// has begun not to suit, such as a CMYK one, still takes the ordinary run): for `imagepipe explain`.
    public func streams(in context: RunContext, prepared: PreparedRun) -> Bool {
        streamingSave(in: context, prepared: prepared) != nil
    }

    /// Why the run of this input is not streamed, in words, from the decision the run itself
    /// makes (`streamingDecision`); nil when it streams. What `imagepipe explain` prints.
    public func reasonNotStreamed(in context: RunContext, prepared: PreparedRun) -> String? {
        if case let .failure(whole) = streamingDecision(in: context, prepared: prepared) { whole.reason } else { nil }
    }

    /// Why a run is not streamed (`streamingDecision`).
    struct NotStreamed: Error {
        let reason: String
    }

    /// `streamingDecision`'s streaming, or nil.
    func streamingSave(in context: RunContext, prepared: PreparedRun) -> StreamedSave? {
        try? streamingDecision(in: context, prepared: prepared).get()
    }

    /// What streaming this input takes, when it can be streamed (and is large enough to be,
    /// `RunContext.streamAboveBytes`), else why not. The stages' classes
    /// are asked in the run's scaling mode (a resize's kernel depends on it). A `tee`, and a
    /// `branch`'s groups but the last, become side outputs fed from the run's chain
    /// (`SideOutputFeed`); the last group goes on in the chain to the run's own encoder.
    func streamingDecision(in context: RunContext, prepared: PreparedRun) -> Result<StreamedSave, NotStreamed> {
        let plan = prepared.plan, description = prepared.description
        func whole(_ reason: String) -> Result<StreamedSave, NotStreamed> { .failure(NotStreamed(reason: reason)) }
        if context.wholePictures { return whole("IMAGEPIPE_WHOLE_PICTURES asks") }
        if context.streamAboveBytes > 0, plan.estimatedPeakBytes() - Plan.workingBytes <= context.streamAboveBytes {
            guard plan.regionBytes != nil else { return whole("a picture this small is run on one thread while the other pictures keep the cores busy") }
            // A small region of a large picture (a IIIF tile): the whole decode's address space
            // is reserved, though only the region's pages are written, so it must fit the machine.
            let addressSpace = plan.decodeSize.width.multipliedReportingOverflow(by: plan.decodeSize.height * 4)
            if !addressSpace.overflow, addressSpace.partialValue <= MemoryBudget.defaultLimit {
                return whole("a region this small is run on one thread while the other pictures keep the cores busy")
            }
        }
        guard let load = source as? Load else { return whole("its source is not a file") }
        guard prepared.animation == nil else { return whole("its frames go through the stages one at a time") }
        guard !surveysOffTheChain else {
            return whole("a surveying stage in a branch's group other than the last takes whole pictures")
        }
        guard let header = description.header, case let format = header.format else { return whole("its format is not known before decoding") }
        guard let path = try? load.resolvedPath(in: context) else { return whole("its input is not known") }
        // A decoder that gives only whole pictures, and standard input, feed the chain from the
        // decoded picture, as the ordinary load makes it (upright, in sRGB, reduced when the
        // plan shrinks on load: a CMYK JPEG's or a piped JPEG's DCT scaling).
        let decodedWhole = !(Codecs.of(format).capabilities.rowsInOrder && header.rowsInOrder && path != "-" && ImageFile.isRegularFile(path))
        let reduction = Self.reduction(plan: plan, description: description)
        let stored = decodedWhole || !description.turned ? plan.decodeSize : plan.decodeSize.transposed
        let orientation = decodedWhole ? 1 : description.orientation
        // The chain's stages, each numbered as `explain` numbers it: a branch's group feeds as
        // the branch, the last group's stages as their rows under it.
        var stages: [(number: Int, stage: any Transform)] = []
        var sides: [SideOutput] = []
        var hasAlpha = header.rowsHaveAlpha
        var size = description.size
        var before: [any Transform] = []
        // A trace's picture after a stage: a side output of its own, fed as a tee's is.
        func trace(_ stage: any Stage, number: Int, group: String? = nil, size: Size, standsFor: Size? = nil) -> Bool {
            guard let trace = context.trace else { return true }
            let save = Save(path: trace.directory + "/" + TraceWriter.fileName(index: number, stage: stage), format: .png, options: TraceWriter.pictureOptions)
            guard let side = SideOutput(save: save, in: SideOutput.traceContext(of: context), steps: [], size: size, rowsHaveAlpha: hasAlpha,
                                        stagesBefore: before, traced: TracedStage(number: number, stage: stage, group: group, standsFor: standsFor)) else {
                return false
            }
            sides.append(side)
            stages.append((number + TracedStage.feedBase, SideOutputFeed(output: side, tracesDecode: number == 0)))
            return true
        }
        func add(_ stage: any Transform, number: Int, group: String? = nil) -> Bool {
            if let tee = stage as? Tee {
                guard let side = SideOutput(save: tee.save, in: context, steps: [], size: size, rowsHaveAlpha: hasAlpha, stagesBefore: before) else { return false }
                sides.append(side)
                stages.append((number, SideOutputFeed(output: side)))
            } else {
                stages.append((number, stage))
                hasAlpha = stage.outputHasAlpha(inputHasAlpha: hasAlpha)
                guard let next = try? stage.outputSize(for: size) else { return false }
                size = next
            }
            before.append(stage)
            return trace(stage, number: number, group: group, size: size)
        }
        // The source's picture is the decode's, reduced when the plan reduces it.
        guard trace(source, number: 0, size: plan.decodeSize, standsFor: plan.decodeSize == plan.sourceSize ? nil : plan.sourceSize) else {
            return whole("a trace of it cannot be written")
        }
        for (offset, stage) in transforms.enumerated() where !add(stage, number: offset + 1) {
            return whole(stage is Tee ? "a tee to standard output, or with a stage that takes whole pictures" : "\(stage.stageSchema.name)'s size is not known")
        }
        let branch = transforms.count + 1
        var number = branch + 1
        // Where each stage of a branch's groups in the run's chain stands, for what it notes.
        var places: [Int: (path: [Int], place: Int)] = [:]
        if sink is Branch, !trace(sink, number: branch, size: size) { return whole("a trace of it cannot be written") }
        // Down the last groups of the branches: the groups beside each last one are side outputs
        // fed where their branch stands (numbered as `explain` numbers their rows), and the last
        // one's stages go on in the run's own chain, to the save that ends it.
        var spine = self, groupPath: [Int] = []
        while let fork = spine.sink as? Branch, let last = fork.groups.last {
            let forkNumber = groupPath.isEmpty ? branch : number
            if !groupPath.isEmpty { number += 1 }
            for (offset, group) in fork.groups.dropLast().enumerated() {
                // A trace sees a group's own stages only in a run of whole pictures.
                guard context.trace == nil || (groupPath.isEmpty && group.transforms.isEmpty && group.sink is Save) else {
                    return whole("a trace shows the stages of a branch's group other than the last, and a branch within a group, in whole pictures")
                }
                guard let side = SideOutput(group: group, path: groupPath + [offset + 1], in: context, size: size, rowsHaveAlpha: hasAlpha, stagesBefore: before) else {
                    return whole("a branch's group to standard output, or with a stage that takes whole pictures")
                }
                sides.append(side)
                sides += side.allNested
                stages.append((forkNumber, SideOutputFeed(output: side)))
                number += Self.rows(of: group)
                guard trace(side.save, number: number - 1, group: Branch.label(of: groupPath + [offset + 1]), size: size) else { return whole("a trace of it cannot be written") }
            }
            groupPath.append(fork.groups.count)
            guard context.trace == nil || groupPath.count == 1 else {
                return whole("a trace shows the stages of a branch's group other than the last, and a branch within a group, in whole pictures")
            }
            for (offset, stage) in last.transforms.enumerated() {
                guard add(stage, number: number, group: Branch.label(of: groupPath)) else { return whole("a tee to standard output, or with a stage that takes whole pictures") }
                places[number] = (groupPath, offset + 1)
                number += 1
            }
            spine = last
        }
        guard let save = spine.sink as? Save else { return whole("its output is not a file") }
        guard let target = try? save.target(in: context) else { return whole("its output is not known") }
        guard trace(save, number: sink is Branch ? number : branch, group: groupPath.isEmpty ? nil : Branch.label(of: groupPath), size: size) else {
            return whole("a trace of it cannot be written")
        }
        // A format without alpha: a picture that gained it is flattened row by row, as the
        // save flattens a whole one.
        let flattening = !target.format.supportsAlpha && hasAlpha ? save.options.background : nil
        func levels(of stages: [any Transform]) -> [StripChain.Level]? {
            StageContext.current.scaling(plan.scaling).bound {
                StripChain.levels(of: stages, storedSize: stored, orientation: orientation,
                                  reduction: reduction, inputHasAlpha: header.rowsHaveAlpha,
                                  surveysAsPoints: true)
            }
        }
        guard let levels = levels(of: stages.map(\.stage) + (flattening.map { [AlphaFlattening(background: $0)] } ?? [])) else {
            // The first stage the chain cannot pull is the one to name.
            let culprit = stages.indices.first { levels(of: stages[...$0].map(\.stage)) == nil }.map { stages[$0].stage }
            return whole(culprit.map { "\($0.stageSchema.name) needs the whole picture" + ($0.stageClass == .whole ? "" : " here") }
                         ?? "its stages take whole pictures")
        }
        // The levels number the stages in order; each takes its own number instead.
        let numbers = [0] + stages.map(\.number) + [sink is Branch ? number : branch]
        // The turns of every chain of the run share the disc threshold, the side outputs' first.
        var room = TileCache.discThreshold
        for side in sides { side.shareTileRoom(&room) }
        return .success(StreamedSave(save: save, destination: target.path, format: target.format, levels: levels.map { $0.renumbered { numbers[$0] } },
                                     storedSize: stored, decodedWhole: decodedWhole, flattening: flattening, sides: sides,
                                     tileRoom: room, stagesBefore: before, groupPlaces: places))
    }

    /// Whether a surveying stage stands where the streamed run cannot read the picture again
    /// for it: in a branch's group beside the last, whose side output sees the rows once. (The
    /// pipeline's own and those down its last groups are read twice.)
    private var surveysOffTheChain: Bool {
        func stages(of pipeline: Pipeline) -> [any Transform] {
            pipeline.transforms + ((pipeline.sink as? Branch)?.groups.flatMap(stages) ?? [])
        }
        var spine = self, beside: [any Transform] = []
        while let fork = spine.sink as? Branch, let last = fork.groups.last {
            beside += fork.groups.dropLast().flatMap(stages)
            spine = last
        }
        return beside.contains(where: \.awaitsSurvey)
    }

    /// The rows `explain` gives a branch's `group`: its stages, and its save or its branch's row
    /// and the rows of that branch's groups.
    static func rows(of group: Pipeline) -> Int {
        group.transforms.count + ((group.sink as? Branch).map { 1 + $0.groups.reduce(0) { $0 + rows(of: $1) } } ?? 1)
    }

    /// `metadata` of the picture after `stages`, from the decode's: as gray as the last stage
    /// that changed it made it (a `tee` passes the picture on as it was), flattened onto
    /// `background` when given (gray on a color is not gray).
    private static func metadata(_ metadata: ImageMetadata, after stages: [any Transform], flattenedOnto background: Color?) -> ImageMetadata {
        var metadata = metadata
        metadata.grayOnly = stages.last { !($0 is Tee) }.map(\.makesGray) ?? metadata.grayOnly
        if let background {
            metadata.grayOnly = metadata.grayOnly && background.red == background.green && background.green == background.blue
        }
        return metadata
    }

    /// Bytes a streamed run of this input is expected to hold at its peak (`streamedMemory`);
    /// nil when the input does not stream, or when its decoder's band is known only once it decodes.
    public func estimatedStreamedPeakBytes(in context: RunContext, prepared: PreparedRun) -> Int? {
        streamedMemory(in: context, prepared: prepared)?.total
    }

    /// What a streamed run of this input holds, piece by piece, worked out from sizes before any
    /// decoding: the decode ring (`ringRows`), each level's ring, window and tiles
    /// (`StripChain.levelBytes`), what every stage holds beside, libjpeg's coefficients for a
    /// JPEG output's Huffman tables, and `streamedWorkingBytes`; nil when the input does not
    /// stream, or when its decoder's band (a TIFF's strips or tiles) is known only once it decodes.
    public func streamedMemory(in context: RunContext, prepared: PreparedRun) -> StreamedMemory? {
        let plan = prepared.plan
        guard let streamed = streamingSave(in: context, prepared: prepared),
              let header = prepared.description.header,
              let band = Codecs.of(header.format).bandRows(of: header, height: streamed.storedSize.height) else { return nil }
        let (save, format, levels, stored) = (streamed.save, streamed.format, streamed.levels, streamed.storedSize)
        let rowStride = RowHandoff.Start.rowStride(width: stored.width, channels: levels[0].hasAlpha ? 4 : 3)
        return StageContext.current.scaling(plan.scaling).bound { () -> StreamedMemory? in
            guard let needs = try? StripChain.decodeRingNeeds(levels, size: stored, rowStride: rowStride, decodeStrip: Self.streamedStripRows),
                  let layouts = try? StripChain.layouts(of: levels, size: stored, rowStride: rowStride, decodeStrip: Self.streamedStripRows),
                  let held = try? StripChain.levelBytes(levels, size: stored, rowStride: rowStride, decodeStrip: Self.streamedStripRows,
                                                        writeBehind: Self.writesBehind(levels), tileRoom: streamed.tileRoom) else { return nil }
            // A pyramid holds its levels' bands and the tiles waiting for the encoders, not a coder's state.
            let pyramid = save.pyramidLayout(path: streamed.destination).map { layout in
                PyramidBuilder.heldBytes(save.pyramidGeometry(layout, size: layouts[layouts.count - 1].size), channels: levels[levels.count - 1].hasAlpha ? 4 : 3)
            }
            let coding = pyramid ?? (streamed.gathersWhole ? StreamedMemory.gatheredBytes(layouts[layouts.count - 1].size)
                : heldEncoderBytes(save, format: format, size: layouts[layouts.count - 1].size, channels: levels[levels.count - 1].hasAlpha ? 4 : 3,
                                   gray: streamed.stagesBefore.last { !($0 is Tee) }?.makesGray ?? false, in: context, prepared: prepared))
            let ring = Self.ringRows(rowStride: rowStride, height: stored.height, holding: needs + band)
            // A picture decoded whole is held beside the ring it feeds.
            let decoded = streamed.decodedWhole ? min(Int.max / 8, stored.height * rowStride) : 0
            var stages: [Int: StreamedMemory.Share] = [:]
            for (level, bytes) in zip(levels, held) {
                if let (index, stage) = level.windowed {
                    let role: StreamedMemory.Role = switch stage.stageClass {
                    case _ where level.readsTiles: .turn
                    case _ where level.gathers: .whole
                    case _ where stage.awaitsSurvey: .survey
                    case let .area(radius): .area(radius: radius)
                    default: .resample
                    }
                    stages[index] = StreamedMemory.Share(role: role, bytes: bytes)
                }
                for (index, stage) in level.points where !(stage is SideOutputFeed) {
                    stages[index] = StreamedMemory.Share(role: stage.awaitsSurvey ? .survey : .point, bytes: 0)
                }
            }
            // A tee or a branch holds its side outputs' rings, chains and encoders.
            for (level, layout) in zip(levels, layouts) {
                for (index, stage) in level.points {
                    guard let side = (stage as? SideOutputFeed)?.output, let bytes = try? side.heldBytes(pushedStrip: layout.strip) else { continue }
                    stages[index] = StreamedMemory.Share(role: .write, bytes: (stages[index]?.bytes ?? 0) + bytes)
                }
            }
            return StreamedMemory(decodeRing: min(Int.max / 8, (ring == 0 ? stored.height : ring) * rowStride) + decoded, stages: stages, coding: coding,
                                  besides: plan.steps.reduce(0) { min(Int.max / 8, $0 + min(Int.max / 8, $1.held)) },
                                  working: Self.streamedWorkingBytes, gathersOutput: streamed.gathersWhole, decodedWhole: streamed.decodedWhole,
                                  decoderWritesWhole: band >= stored.height && stored.height > Self.streamedStripRows)
        }
    }

    /// What a streamed run holds beside its rows: the libraries, the threads' stacks, the
    /// codecs' buffers. `Plan.workingBytes` and 8 MiB: with it the estimate stayed above the
    /// measured peak of every stage class on a 24- and a 96-megapixel JPEG (`/usr/bin/time`),
    /// by 7 to 13 MiB.
    static let streamedWorkingBytes = Plan.workingBytes + (8 << 20)

    /// What one run of this input is expected to hold at its peak: a streamed run's rows
    /// (`estimatedStreamedPeakBytes`), else the plan's whole pictures (`Plan.estimatedPeakBytes`),
    /// with `inputBytes` read into memory beside them. What a memory budget reserves.
    public func estimatedPeakBytes(in context: RunContext, prepared: PreparedRun, inputBytes: Int = 0) -> Int {
        let decoded = estimatedStreamedPeakBytes(in: context, prepared: prepared).map { min(Int.max / 8, inputBytes) + $0 }
            ?? prepared.plan.estimatedPeakBytes(inputBytes: inputBytes)
        // A lossless JPEG write is tried first, and the decoding run follows it only when the
        // write cannot be exact: the peak is the larger of the two.
        return max(decoded, losslessJPEGPeakBytes(in: context, prepared: prepared))
    }

    /// The reduction of the plan's decode (upright), nil for a full decode.
    static func reduction(plan: Plan, description: SourceDescription) -> DecodeReduction? {
        let decoded = plan.decodeSize
        return decoded == description.size ? nil
            : DecodeReduction(fullSize: description.size, decodedSize: decoded, mapping: plan.mapping(toDecoded: decoded, description: description))
    }

    /// What a streamed run came to: the file written, or the decode when the picture turned out
    /// not to suit streaming after all (CMYK, alpha, or a profile the save converts to), for the
    /// ordinary run to go on with.
    enum StreamedOutcome {
        case written(RunResult)
        case declined(Image)
    }

    /// The streamed run. A stage that must survey the picture first (`SurveyingStage`) is given
    /// a first streamed read of the stages before it, and the run goes on with the stage its
    /// survey made, one survey at a time.
    func runStreamed(_ streamed: StreamedSave, in context: RunContext, prepared: PreparedRun) throws -> StreamedOutcome {
        guard let pending = pendingSurvey else {
            return try streamRows(streamed.levels, storedSize: streamed.storedSize, into: .save(streamed), in: context, prepared: prepared)
        }
        let surveyed: any Transform, notes: [StageNote]
        switch try survey(pending.stage, pending, for: streamed, in: context, prepared: prepared) {
        case let .surveyed(stage, made): (surveyed, notes) = (stage, made)
        case let .declined(decoded): return .declined(decoded)
        }
        let next = pending.replaced(surveyed)
        guard let streamed = next.streamingSave(in: context, prepared: prepared) else {
            throw StageError("\(surveyed.stageSchema.name) made a \(surveyed.stageClass.description) stage from its survey, where it said \(pending.stage.surveyedClass.description) (a bug in the stage)")
        }
        // What the stage noted when its survey ended (trim's box, a smart crop's window) is its
        // note for the run.
        let outcome = try next.runStreamed(streamed, in: context, prepared: prepared)
        guard case var .written(result) = outcome, !notes.isEmpty else { return outcome }
        if let place = pending.inGroup {
            result.groupNotes[place.path, default: [:]][place.stage] = notes
        } else {
            result.notes[pending.number] = notes
        }
        return .written(result)
    }

    /// The first stage that has yet to survey the picture: among the pipeline's own stages, or
    /// among those of a branch's last group (and its branch's last group, and so down), which go
    /// on in the run's own chain.
    struct PendingSurvey {
        let stage: any SurveyingStage
        /// Its number, as `explain` numbers the stages.
        let number: Int
        /// For a stage of a branch's last group (down the last groups): that group's path and
        /// the stage's place in it.
        var inGroup: (path: [Int], stage: Int)? = nil
        /// The stages whose rows it surveys, with their numbers (a branch's other groups are
        /// left out: they write in the run's own read).
        let before: [(number: Int, stage: any Transform)]
        /// The pipeline with another stage in its place.
        let replaced: (any Transform) -> Pipeline
    }

    var pendingSurvey: PendingSurvey? {
        // Down the spine of last groups, the stages numbered as `streamingDecision` numbers them:
        // the pipeline's own, then after each branch's row and the rows of its other groups,
        // its last group's.
        var before: [(number: Int, stage: any Transform)] = []
        var spine = self, path: [Int] = [], number = 1
        while true {
            for (offset, stage) in spine.transforms.enumerated() {
                guard let surveying = stage as? any SurveyingStage, stage.awaitsSurvey else {
                    before.append((number, stage))
                    number += 1
                    continue
                }
                let at = path
                return PendingSurvey(stage: surveying, number: number, inGroup: at.isEmpty ? nil : (at, offset + 1), before: before) { made in
                    self.replacingStage(inGroup: at, at: offset, with: made)
                }
            }
            guard let fork = spine.sink as? Branch, let last = fork.groups.last else { return nil }
            number += 1 + fork.groups.dropLast().reduce(0) { $0 + Self.rows(of: $1) }
            path.append(fork.groups.count)
            spine = last
        }
    }

    /// This pipeline with `stage` at `index` among the stages of the group at `path` ([] its own).
    private func replacingStage(inGroup path: [Int], at index: Int, with stage: any Transform) -> Pipeline {
        var next = self
        guard let first = path.first, let branch = sink as? Branch else {
            next.transforms[index] = stage
            return next
        }
        var groups = branch.groups
        groups[first - 1] = groups[first - 1].replacingStage(inGroup: Array(path.dropFirst()), at: index, with: stage)
        next.sink = Branch(groups: groups)
        return next
    }

    /// What a survey came to: the stage it made and what it noted then, or the decode, when
    /// the picture turned out not to suit streaming (the ordinary run then goes on with it).
    enum SurveyOutcome {
        case surveyed(any Transform, notes: [StageNote])
        case declined(Image)
    }

    /// Streams the input through the stages before `stage` (`pending`'s) and lets it survey
    /// every strip they make.
    private func survey<S: SurveyingStage>(_ stage: S, _ pending: PendingSurvey, for run: StreamedSave, in context: RunContext,
                                           prepared: PreparedRun) throws -> SurveyOutcome {
        let description = prepared.description
        // (In the run's context already: the run binds it around the streamed run.)
        // The survey's read writes nothing: a tee before the stage writes in the run's own read.
        let stages = pending.before.map { $0.stage is Tee ? SideOutputFeed(output: nil) : $0.stage }
        guard let levels = StripChain.levels(of: stages, storedSize: run.storedSize, orientation: run.orientation(of: description),
                                             reduction: Self.reduction(plan: prepared.plan, description: description),
                                             inputHasAlpha: run.levels[0].hasAlpha) else {
            throw StageError("the stages before \(stage.stageSchema.name) do not stream (a bug in the streamed run)")
        }
        let numbers = [0] + pending.before.map(\.number)
        var survey = stage.newSurvey()
        let outcome = try streamRows(levels.map { $0.renumbered { numbers[$0] } }, storedSize: run.storedSize,
                                     into: .survey(stage: pending.number, run: run) { rows, position in
            try survey.look(at: rows, at: position)
        }, in: context, prepared: prepared)
        switch outcome {
        case .written:
            let (made, notes) = try withLocation(stage: pending.number) { try StageNote.collecting { try stage.surveyed(by: survey) } }
            // A stage that surveys again would be surveyed again, and again, until the stack ran out.
            guard !made.awaitsSurvey else {
                throw StageError("\(stage.stageSchema.name): its survey made a stage that still waits for a survey; surveyed(by:) must give a stage of class \(stage.surveyedClass.description) (a bug in the stage)")
            }
            return .surveyed(made, notes: notes)
        case let .declined(decoded): return .declined(decoded)
        }
    }

    /// Where a streamed read's rows go: encoded into the run's file, or to a stage's survey
    /// (`stage` is its place in the pipeline), strip by strip.
    enum RowDestination {
        case save(StreamedSave)
        case survey(stage: Int, run: StreamedSave, (Image, StripPosition) throws -> Void)

        /// The run's save, which a survey is the first read of.
        var run: StreamedSave {
            switch self {
            case let .save(run), let .survey(_, run, _): run
            }
        }

        /// What the disc threshold leaves its chain's turns: a survey's read runs alone.
        var tileRoom: Int {
            if case let .save(run) = self { run.tileRoom } else { TileCache.discThreshold }
        }
    }

    /// Decodes the input on a thread of its own and puts its rows through `levels` into
    /// `destination`: `.written` once they are all there (for a survey, with no file).
    private func streamRows(_ levels: [StripChain.Level], storedSize: Size, into destination: RowDestination, in context: RunContext,
                            prepared: PreparedRun) throws -> StreamedOutcome {
        let description = prepared.description
        let load = source as! Load // streamingSave's promise
        let path = try load.resolvedPath(in: context)
        var options = load.loadOptions(in: context)
        options.atLeast = prepared.plan.decodeAtLeast
        options.region = prepared.plan.decodeRegion
        options.decodeResampling = prepared.plan.decodeResampling
        let header = description.header!
        let rowSource: RowSource
        if destination.run.decodedWhole {
            let wholeOptions = options
            rowSource = RowSource.decodedWhole { try load.decoded(path: path, options: wholeOptions, header: header, in: context) }
        } else {
            guard let source = try RowSource.of(header.format, path: path, header: header, options: options) else {
                throw ImageError(.unreadable, path: path, reason: "not a regular file")
            }
            rowSource = source
        }
        let handoff = RowHandoff(applyOrientation: options.applyOrientation)
        // A trace shows the decoding's and the encoding's time as the source's and the save's.
        let codecTime = context.codecTime ?? (context.trace == nil ? nil : CodecTime())
        let decoder = WorkerThread {
            defer { handoff.finish() }
            return try codecTime.decoding { try rowSource.decode(handoff) }
        }
        // On every way out the decoder is let go (it may wait for the reader's word or for room)
        // and joined: the thread is not left running.
        defer {
            handoff.stopReading()
            _ = try? decoder.join()
        }
        func decoded() throws -> Image { try withLocation(stage: 0) { try decoder.join() } }
        // The decoder's warnings are told once, by the read that writes or goes on as the ordinary run.
        func declined() throws -> StreamedOutcome { .declined(Load.toldOfDecodeWarnings(try decoded(), path: path, in: context)) }
        guard let start = handoff.waitForStart() else { return try declined() }
        // A picture decoded whole was converted as it was loaded.
        let (convertFrom, decodedMetadata) = destination.run.decodedWhole ? (nil, start.metadata) : Image.colorManagement(of: start.metadata, options: options)
        let metadata = Self.metadata(decodedMetadata, after: destination.run.stagesBefore, flattenedOnto: destination.run.flattening)
        let saving = try? Image.savingPlan(for: metadata, as: destination.run.format,
                                           options: destination.run.save.encoderOptions(writing: destination.run.destination))
        let sides = destination.run.sides.map { side in
            let metadata = Self.metadata(decodedMetadata, after: side.stagesBefore, flattenedOnto: side.flattening)
            return (side: side, metadata: metadata, saving: try? Image.savingPlan(for: metadata, as: side.format, options: side.save.options))
        }
        // The levels were worked out for the decode's size: a decoder that made another (which
        // none should) leaves the work to the ordinary run, as does a save whose profile cannot
        // be read (where the ordinary run says why; a survey checks the sides too, so as not to
        // read a picture the run then declines).
        guard start.channels == (levels[0].hasAlpha ? 4 : 3), start.size == storedSize, let saving, sides.allSatisfy({ $0.saving != nil }) else {
            handoff.decline()
            return try declined()
        }
        // A save that converts colors: each strip, last, when the encoder takes rows; a whole
        // picture's encode converts its own.
        var levels = levels
        if case let .save(run) = destination, !run.gathersWhole, saving.target != metadata.iccProfile {
            let (from, to) = try Image.savingConversion(from: metadata.iccProfile, to: saving.target)
            levels[levels.count - 1].points.append((transforms.count + 1, ProfileConversionOnSave(from: from, to: to)))
        }
        let ring = Self.ringRows(rowStride: start.rowStride, height: start.size.height,
                                 holding: try StripChain.decodeRingNeeds(levels, size: start.size, rowStride: start.rowStride,
                                                                         decodeStrip: Self.streamedStripRows) + start.bandRows)
        handoff.decide(ringRows: ring)
        guard let pixels = handoff.waitForPixels(), handoff.beginReading() else {
            handoff.stopReading()
            _ = try decoded()
            throw ImageError(.corrupt, path: path, reason: "the decoder stopped before the first row")
        }
        if case let .save(run) = destination { // a survey's read is the run's second
            for (side, _, sideSaving) in sides where side.traced == nil {
                for warning in sideSaving!.warnings { context.warn("\(side.destination): \(warning)") }
                if let back = side.flattening { context.warn("\(side.destination): JPEG has no alpha; flattened onto \(back)") }
            }
            for warning in saving.warnings { context.warn("\(run.destination): \(warning)") }
            if let back = run.flattening { context.warn("\(run.destination): JPEG has no alpha; flattened onto \(back)") }
            if metadata.profileTooLarge { context.warn(Load.profileWarning(path)) }
        }

        let rowStride = start.rowStride
        // A stage of a branch's group is located at the branch; a trace's feed at its stage. A
        // trace counts the time of each stage's strips.
        let trace = context.trace
        let located = { (index: Int, body: () throws -> Image) throws -> Image in
            let number = index >= TracedStage.feedBase ? index - TracedStage.feedBase : index
            // The clock is read only for a trace: this runs for every stage on every strip.
            guard let trace, number == index else { return try self.withLocation(stage: min(number, self.transforms.count + 1), body) }
            let start = ContinuousClock.now
            defer { trace.addSeconds((ContinuousClock.now - start).inSeconds, index: index) }
            return try self.withLocation(stage: min(number, self.transforms.count + 1), body)
        }
        // The decode ring's strips through the color conversion and the first point stages, in
        // place. Rows that stop coming mean the decode failed: its error is the one to give.
        let makeDecoded = StripChain.stripByStrip(height: start.size.height, strip: Self.streamedStripRows,
                                                  arrived: { handoff.waitForRows(atLeast: $0) }) { top, rows in
            try context.cancellation?.check(path: context.input)
            try self.transformStrip(pixels + (ring > 0 ? top % ring : top) * rowStride, at: StripPosition(top: top, pictureSize: start.size),
                                    rows: rows, rowStride: rowStride, hasAlpha: levels[0].hasAlpha, stages: levels[0].points,
                                    convertingFrom: convertFrom, options: options, path: path, located: located)
        }
        let writesBehind = Self.writesBehind(levels)
        let chain = try StripChain(levels: levels, size: start.size, rowStride: rowStride, decodeRing: pixels, decodeRingRows: ring,
                               decodeStrip: Self.streamedStripRows, writeBehind: writesBehind, tileRoom: destination.tileRoom, makeDecoded: makeDecoded,
                               releaseDecoded: { handoff.release(rowsBefore: $0) },
                               located: located)
        let output = chain.output, outputHeight = output.size.height, strip = chain.outputStrip
        let throughDecodeRing = levels.count == 1
        let streamed: StreamedSave
        switch destination {
        case let .save(run): streamed = run
        case let .survey(index, _, look):
            // The survey pulls the chain a strip at a time and looks at it there.
            let looked = Result {
                try withLocation(stage: index) {
                    var end = 0
                    while end < outputHeight {
                        let made = try chain.rows(upTo: min(outputHeight, end + strip), releasingDecoded: false)
                        guard made > end else { break } // the decode failed: its error is the one to give
                        let first = output.pixels + (output.ringRows > 0 ? end % output.ringRows : end) * output.rowStride
                        try look(Image.viewing(rows: first, size: Size(output.size.width, made - end), rowStride: output.rowStride,
                                               hasAlpha: output.hasAlpha),
                                 StripPosition(top: end, pictureSize: output.size))
                        if throughDecodeRing { handoff.release(rowsBefore: made) }
                        end = made
                    }
                }
            }
            handoff.stopReading()
            try finishedDecoding(decoded)
            try looked.get()
            try context.cancellation?.check(path: context.input)
            return .written(RunResult(plan: prepared.plan, written: [], outputSize: output.size))
        }
        // Each side output's chain and encoder on a thread of its own, fed by the run's chain at
        // the tee or branch; on any failure they stop and write nothing.
        defer { for (side, _, _) in sides { side.abandon() } }
        // A tee within a branch's group is fed by the group's chain, started before it; its
        // failures are located at the branch, as the group's are.
        var feedIndex: [ObjectIdentifier: Int] = [:]
        for (side, sideMetadata, sideSaving) in sides {
            let (feedLevels, feedLayouts) = side.feeder.map { ($0.levels, $0.startedLayouts) } ?? (levels, chain.layouts)
            guard let (level, index) = SideOutput.feed(of: side, in: feedLevels) else {
                throw StageError("a tee or branch is in no level of the streamed run (a bug in the streamed run)")
            }
            let place = side.feeder.flatMap { feedIndex[ObjectIdentifier($0)] } ?? index
            feedIndex[ObjectIdentifier(side)] = place
            try side.start(pushedStrip: feedLayouts[level].strip, metadata: sideMetadata, saving: (sideSaving!.target, sideSaving!.embedded),
                           in: context) { _, body in
                try located(place, body)
            }
        }
        let (save, target, format) = (streamed.save, streamed.destination, streamed.format)
        // The chain runs ahead on a thread of its own while the encoder writes the rows before
        // (write-behind). With no level past the decode, its output ring is the decoder's, and
        // the encoder's progress is what lets the decoder go on.
        let writeBehind = WriteBehind(ringRows: throughDecodeRing ? 0 : output.ringRows,
                                      released: throughDecodeRing ? { handoff.release(rowsBefore: $0) } : nil)
        // The encoder writes the temporary file as rows come; it lands only once the decoder, every
        // stage and the encoder have finished well.
        let written = try withLocation(stage: transforms.count + 1) {
            try save.storeRows(at: target, format: format, in: context) { encode in
                // A thread of its own sees the run's context as this one does.
                let stageContext = StageContext.current
                let producer = !writesBehind ? nil : WorkerThread<Void>.started {
                    defer { writeBehind.finish() }
                    try stageContext.bound {
                        var end = 0
                        while end < outputHeight {
                            let next = min(outputHeight, end + strip)
                            guard writeBehind.waitForRoom(upTo: next) else { return }
                            let made = try chain.rows(upTo: next, releasingDecoded: false)
                            writeBehind.made(made)
                            guard made >= next else { return } // the decode failed
                            end = next
                        }
                    }
                }
                // Without one (or with no thread to be had) the encoder pulls the chain itself, strip by strip.
                let encoded = Result {
                    try codecTime.encoding { makingRows in
                        let rows = chain.encoderFeed(rowsReady: producer == nil ? nil : { writeBehind.rows(upTo: $0) }, makingRows: makingRows)
                        try encode(rows, metadata, saving.embedded)
                    }
                }
                // The chain is stopped and joined before the decoder is told the rows are no longer read.
                writeBehind.stop()
                let produced = Result { try producer?.join() }
                handoff.stopReading()
                // The decoder's failure first (the encoder only saw rows stop), then a stage's,
                // then the encoder's own.
                try finishedDecoding { Load.toldOfDecodeWarnings(try decoded(), path: path, in: context) }
                if case let .failure(error) = produced { throw error }
                if let pulled = chain.pullFailure { throw pulled }
                do { try encoded.get() } catch var error as ImageError {
                    error.path = target
                    throw error
                }
                for (side, _, _) in sides { try side.finish() }
                // As `Save.write` does: a run stopped meanwhile writes nothing.
                try context.cancellation?.check(path: target)
            }
        }
        let files = sides.filter { $0.side.traced == nil }.map { WrittenFile(path: $0.side.destination, size: $0.side.outputSize) }
            + [WrittenFile(path: written, size: output.size)]
        if let trace {
            // The source's time is its decoding's, the run's own save's (the last picture
            // traced) its encoding's.
            let traces = sides.map(\.side).filter { $0.traced != nil }
            for side in traces {
                let traced = side.traced!
                let seconds = traced.number == 0 ? codecTime?.decoding : side === traces.last ? codecTime?.encoding : nil
                trace.recordStreamed(index: traced.number, stage: traced.stage, group: traced.group, size: side.size, standsFor: traced.standsFor,
                                     seconds: seconds)
            }
        }
        var result = RunResult(plan: prepared.plan, written: files, outputSize: output.size)
        // What the stages noted goes where the run of whole pictures puts it: the pipeline's own
        // stages', and each branch group's by its path.
        for (number, noted) in chain.notes {
            if number <= transforms.count {
                result.notes[number] = noted
            } else if let (path, place) = streamed.groupPlaces[number] {
                result.groupNotes[path, default: [:]][place] = noted
            }
        }
        for (side, _, _) in sides {
            for (path, noted) in side.notes { result.groupNotes[path, default: [:]].merge(noted) { $1 } }
        }
        return .written(result)
    }


    /// Joins the decoder of a streamed read whose rows are no longer read, and throws its failure,
    /// unless it stopped only because the reader did (a stage or the encoder failed, and says why).
    private func finishedDecoding(_ decoded: () throws -> Image) throws {
        do {
            _ = try decoded()
        } catch let error as ImageError where error.kind == .interrupted && error.reason == RowHandoff.readerStopped {
        }
    }

    /// Whether the chain runs ahead on a thread of its own while the encoder writes: not when it
    /// has an area stage wider than 2 rows each way, whose filter already keeps every core busy
    /// in row bands (a third busy thread then only slows it: on 96 MP, `blur 3` took 0.84–0.91 s
    /// written behind against 0.76–0.77 s pulled, where libvips' Speed and Memory pipeline took
    /// 0.95–1.02 s against 1.16–1.24 s).
    static func writesBehind(_ levels: [StripChain.Level]) -> Bool {
        !levels.contains { level in
            guard let stage = level.windowed?.stage, case let .area(radius) = stage.stageClass else { return false }
            return radius > 2
        }
    }

    /// What the decode ring holds beside what the stages read: room for the decoder to run
    /// ahead. 4 MiB ran as fast as 16 (fit 1280x720 on 17.9 MP, `blur 3` and `grayscale` on
    /// 45 MP, `/usr/bin/time`, each twice) and held 10–12 MB less.
    static let decodeRingBytes = 4 << 20

    /// Rows of the ring the streamed decode uses: a whole number of strips (so a strip never
    /// wraps), about `decodeRingBytes` of them, at least 4 strips and at least `holding` rows (what the
    /// first area stage reads at once); 0, the whole picture, when that would hold it all anyway.
    static func ringRows(rowStride: Int, height: Int, holding: Int = 0) -> Int {
        let strips = max(4, decodeRingBytes / max(1, rowStride * streamedStripRows), (holding + streamedStripRows - 1) / streamedStripRows)
        let rows = strips * streamedStripRows
        return rows >= height ? 0 : rows
    }

    /// Puts `rows` rows of the decode, from `first`, through the color conversion the load makes
    /// and `stages` (point stages), in place.
    private func transformStrip(_ first: UnsafeMutablePointer<UInt8>, at position: StripPosition, rows: Int, rowStride: Int, hasAlpha: Bool,
                                stages: [(index: Int, stage: any Transform)],
                                convertingFrom profile: ICCProfile?, options: LoadOptions, path: String,
                                located: (Int, () throws -> Image) throws -> Image) throws {
        let size = Size(position.pictureSize.width, rows)
        var converted: Image?
        if let profile {
            do {
                converted = try Image.viewing(rows: first, size: size, rowStride: rowStride, hasAlpha: hasAlpha).converted(from: profile, to: .sRGB, intent: options.intent)
            } catch var error as ImageError {
                error.path = path
                throw error
            }
        }
        try StripChain.applyPoints(stages, toRows: first, size: size, rowStride: rowStride, hasAlpha: hasAlpha, at: position,
                                   startingFrom: converted, located: located)
    }
}
