/// A file a streamed run writes beside its own output: a `tee`'s, or a `branch` group's other
/// than the last (which goes on in the run's own chain). The run's chain pushes the rows at the
/// tee or the branch into a ring (`SideOutputFeed`, `PushedRows`); on a thread of its own, a
/// strip chain of the side's own stages (none for a tee) reads them from there, as the run's
/// chain reads the decoder's ring, and an encoder writes its rows as they come. So the picture
/// at a tee or a branch is never whole in memory, and each output's encoding has a thread. The
/// file lands as `save` lands one (a temporary file renamed, through the run's output gate),
/// once its last row is written.
final class SideOutput: @unchecked Sendable {
    let save: Save
    let destination: String
    let format: ImageFormat
    /// The size of the picture pushed, and whether its rows are RGBA.
    let size: Size
    let rowsHaveAlpha: Bool
    /// The save's background when the picture written has alpha and the file is a JPEG, which
    /// has none: the rows are flattened onto it, as the save flattens a whole picture.
    let flattening: Color?
    /// The side's own stages (a flattening into JPEG last, then a conversion of colors when the
    /// save makes one), as the levels of its chain.
    private(set) var levels: [StripChain.Level]
    /// Every stage of the pipeline the picture written went through, for what it says of it
    /// (whether it is gray).
    let stagesBefore: [any Transform]
    /// For a trace's picture: the stage it shows. Its file is written outside the run's output
    /// gate and folder, as the trace's others are, and is not one of the run's outputs.
    let traced: TracedStage?
    /// Where each stage of its chain stands in the branch's groups (by the chain's numbering):
    /// what it notes goes there (`RunResult.groupNotes`).
    private let places: [Int: (path: [Int], place: Int)]

    /// The side outputs of the tees among its own stages, which its chain feeds (a branch
    /// group's `tee`), and, for one of those, the side output whose chain feeds it; both are
    /// among the run's side outputs, the feeding one first.
    private(set) var nested: [SideOutput] = []
    private(set) weak var feeder: SideOutput?
    /// Its chain's layouts once started, where its nested side outputs find their strips.
    private(set) var startedLayouts: [StripChain.Layout] = []

    /// Bytes of the run's disc threshold its chain's turns may keep in memory (`shareTileRoom`).
    private(set) var tileRoom = TileCache.discThreshold

    /// The rows its chain makes at a time from the pushed ones (the decoder's strip in the run's chain).
    private static let strip = Pipeline.streamedStripRows

    /// The bytes from one pushed row to the next in its ring.
    private let rowStride: Int
    /// Set by `start`; nil for a read that writes nothing (a survey's).
    private var ring: UnsafeMutablePointer<UInt8>?
    private var ringRows = 0
    private var pushed: PushedRows?
    private var encoder: WorkerThread<Void>?
    /// The encoder's failure, kept for the run's chain, which sees only that the rows stopped.
    private let failure = Locked<(any Error)?>(nil)
    /// The size of the picture written, once started.
    private(set) var outputSize: Size
    /// Its chain while it runs, let go of (with its rings) once the file is written.
    private var chain: StripChain?
    /// What its own stages noted (a smart crop's window), by group and place as a run of whole
    /// pictures gives them; set by `finish`.
    private(set) var notes: RunResult.GroupNotes = [:]

    /// Its side outputs, theirs after each, each after the one that feeds it.
    var allNested: [SideOutput] { nested.flatMap { [$0] + $0.allNested } }

    /// One step of a side output's chain: a stage of the branch's group at `path`, at `place` in
    /// it from 1, or a group beside the last of a branch within the group, which a side output
    /// of its own writes from the rows there.
    enum Step {
        case stage(any Transform, path: [Int], place: Int)
        case group(Pipeline, path: [Int])
    }

    /// The side output of a branch's `group` at `path`: its stages, and when it ends in a branch
    /// of its own, that branch's groups but the last as side outputs its chain feeds, then the
    /// last's stages, and so down to the save that ends it. Nil as the designated initializer
    /// gives it.
    convenience init?(group: Pipeline, path: [Int], in context: RunContext, size: Size, rowsHaveAlpha: Bool, stagesBefore: [any Transform]) {
        var steps: [Step] = [], current = group, at = path
        while true {
            steps += current.transforms.enumerated().map { .stage($0.element, path: at, place: $0.offset + 1) }
            guard let branch = current.sink as? Branch, let last = branch.groups.last else { break }
            steps += branch.groups.dropLast().enumerated().map { .group($0.element, path: at + [$0.offset + 1]) }
            (current, at) = (last, at + [branch.groups.count])
        }
        guard let save = current.sink as? Save else { return nil }
        self.init(save: save, in: context, steps: steps, size: size, rowsHaveAlpha: rowsHaveAlpha, stagesBefore: stagesBefore)
    }

    /// The side output of `steps` and `save` on a `size` picture (RGBA rows with
    /// `rowsHaveAlpha`) that went through `stagesBefore` first, or nil when it cannot stream:
    /// standard output, or a stage of a class the chain cannot pull (a surveying one included).
    /// A `tee` among the stages, and a group of a branch within, are side outputs of their own,
    /// which this one's chain feeds.
    init?(save: Save, in context: RunContext, steps: [Step], size: Size, rowsHaveAlpha: Bool, stagesBefore: [any Transform],
          traced: TracedStage? = nil) {
        // (A pyramid beside the run's output is written by the ordinary run.)
        guard let target = try? save.target(in: context), target.path != "-", save.pyramidLayout(path: target.path) == nil else { return nil }
        var chained: [any Transform] = [], nested: [SideOutput] = [], before = stagesBefore
        var places: [Int: (path: [Int], place: Int)] = [:]
        var (alpha, output) = (rowsHaveAlpha, size)
        for step in steps {
            switch step {
            case let .group(group, path):
                guard let side = SideOutput(group: group, path: path, in: context, size: output, rowsHaveAlpha: alpha, stagesBefore: before) else { return nil }
                nested.append(side)
                chained.append(SideOutputFeed(output: side))
            case let .stage(tee as Tee, _, _):
                guard let side = SideOutput(save: tee.save, in: context, steps: [], size: output, rowsHaveAlpha: alpha, stagesBefore: before) else { return nil }
                nested.append(side)
                chained.append(SideOutputFeed(output: side))
                before.append(tee)
            case let .stage(stage, path, place):
                guard let next = try? stage.outputSize(for: output) else { return nil }
                (alpha, output) = (stage.outputHasAlpha(inputHasAlpha: alpha), next)
                chained.append(stage)
                before.append(stage)
                // The chain numbers its stages from 1.
                places[chained.count] = (path, place)
            }
        }
        let flattening = !target.format.supportsAlpha && alpha ? save.options.background : nil
        guard let levels = StripChain.levels(of: chained + (flattening.map { [AlphaFlattening(background: $0)] } ?? []), size: size,
                                             inputHasAlpha: rowsHaveAlpha) else { return nil }
        self.save = save
        destination = target.path
        format = target.format
        self.size = size
        self.rowsHaveAlpha = rowsHaveAlpha
        self.flattening = flattening
        self.levels = levels
        self.stagesBefore = before
        self.places = places
        self.traced = traced
        outputSize = output
        rowStride = RowHandoff.Start.rowStride(width: size.width, channels: rowsHaveAlpha ? 4 : 3)
        self.nested = nested
        for side in nested { side.feeder = self }
    }

    /// Where its chain feeds `side` (one of `nested`, or of the run's chain's when `levels` are
    /// those): the level and the feed's index.
    static func feed(of side: SideOutput, in levels: [StripChain.Level]) -> (level: Int, index: Int)? {
        levels.indices.lazy.compactMap { level in
            levels[level].points.first { ($0.stage as? SideOutputFeed)?.output === side }.map { (level, $0.index) }
        }.first
    }

    deinit { ring?.deallocate() }

    /// A trace side output's own context: its path is the trace's, outside the run's output
    /// folder, and a later failure of the run does not take its file back (the trace's page
    /// shows what the run made before it failed).
    static func traceContext(of context: RunContext) -> RunContext {
        var traceContext = context
        (traceContext.output, traceContext.outputDirectory, traceContext.outputGate, traceContext.trace) = (nil, nil, nil, nil)
        return traceContext
    }

    /// Whether its encoder takes only a whole picture, gathered from its chain's rows (`StreamedSave.gathersWhole`).
    var gathersWhole: Bool { save.gathersRows(format: format, path: destination) }

    /// Lets its chain's turns keep their tiles in memory within what is left of `room`, and
    /// takes what they keep from it.
    func shareTileRoom(_ room: inout Int) {
        tileRoom = room
        guard let layouts = try? StripChain.layouts(of: levels, size: size, rowStride: rowStride, decodeStrip: Self.strip) else { return }
        _ = StripChain.tilesInMemory(levels, layouts, room: &room)
    }

    /// The rows of its ring for pushed strips of `pushedStrip` rows: what its chain reads at
    /// once, a pushed strip and one of its own beside (0: the picture).
    private func ringRows(pushedStrip: Int) throws -> Int {
        let needs = try StripChain.decodeRingNeeds(levels, size: size, rowStride: rowStride, decodeStrip: Self.strip)
        return Pipeline.ringRows(rowStride: rowStride, height: size.height, holding: needs + pushedStrip + Self.strip)
    }

    /// What it holds for pushed strips of `pushedStrip` rows: its ring, its chain's rings and
    /// windows, and what a JPEG encoder keeps for its Huffman tables (a whole encoder: the
    /// picture gathered for it and its copies).
    func heldBytes(pushedStrip: Int) throws -> Int {
        let rows = try ringRows(pushedStrip: pushedStrip)
        let chain = try StripChain.levelBytes(levels, size: size, rowStride: rowStride, decodeStrip: Self.strip, writeBehind: false,
                                                tileRoom: tileRoom)
        let layouts = try StripChain.layouts(of: levels, size: size, rowStride: rowStride, decodeStrip: Self.strip)
        let fed = try nested.reduce(0) { total, side in
            try total + (Self.feed(of: side, in: levels).map { try side.heldBytes(pushedStrip: layouts[$0.level].strip) } ?? 0)
        }
        let coding = gathersWhole ? StreamedMemory.gatheredBytes(outputSize)
            : Codecs.of(format).heldEncoderBytes(size: outputSize, channels: levels[levels.count - 1].hasAlpha ? 4 : 3, gray: false, options: save.options)
        return (rows == 0 ? size.height : rows) * rowStride + chain.reduce(0, +) + coding + fed
    }

    /// Starts its chain and encoder for strips of `pushedStrip` rows of a picture described by
    /// `metadata`, written as `saving` (`Image.savingPlan`) says; `located` gives a stage's
    /// failure its name and place.
    func start(pushedStrip: Int, metadata: ImageMetadata, saving: (target: [UInt8]?, embedded: OutputMetadata), in context: RunContext,
               located: @escaping (Int, () throws -> Image) throws -> Image) throws {
        let context = traced == nil ? context : Self.traceContext(of: context)
        if !gathersWhole, saving.target != metadata.iccProfile {
            let (from, to) = try Image.savingConversion(from: metadata.iccProfile, to: saving.target)
            levels[levels.count - 1].points.append((levels[levels.count - 1].points.last?.index ?? 0, ProfileConversionOnSave(from: from, to: to)))
        }
        let (ringRows, rowStride) = (try ringRows(pushedStrip: pushedStrip), rowStride)
        let ring = UnsafeMutablePointer<UInt8>.allocate(capacity: max(1, (ringRows == 0 ? size.height : ringRows) * rowStride))
        (self.ring, self.ringRows) = (ring, ringRows)
        let pushed = PushedRows(ringRows: ringRows)
        self.pushed = pushed
        let (size, points, hasAlpha) = (size, levels[0].points, levels[0].hasAlpha)
        // The pushed rows through the side's first point stages, in place (the ring holds whole
        // strips: one never wraps). Rows that stop coming mean the run failed: its error is the one to give.
        let makePushed = StripChain.stripByStrip(height: size.height, strip: Self.strip, arrived: { pushed.waitForRows(atLeast: $0) }) { top, rows in
            try StripChain.applyPoints(points, toRows: ring + (ringRows > 0 ? top % ringRows : top) * rowStride,
                                       size: Size(size.width, rows), rowStride: rowStride, hasAlpha: hasAlpha,
                                       at: StripPosition(top: top, pictureSize: size), located: located)
        }
        let chain = try StripChain(levels: levels, size: size, rowStride: rowStride, decodeRing: ring, decodeRingRows: ringRows,
                                   decodeStrip: Self.strip, tileRoom: tileRoom, makeDecoded: makePushed, releaseDecoded: { pushed.release(rowsBefore: $0) },
                                   located: located)
        outputSize = chain.output.size
        startedLayouts = chain.layouts
        self.chain = chain
        let (save, destination, format, failure) = (save, destination, format, failure)
        let stageContext = StageContext.current
        guard let encoder = WorkerThread<Void>.started({
            // However it ends, the run's chain is let go: it may be waiting for room.
            defer { pushed.stop() }
            do {
                try stageContext.bound {
                    _ = try save.storeRows(at: destination, format: format, in: context) { encode in
                        let encoded = Result { try encode(chain.encoderFeed(), metadata, saving.embedded) }
                        // A stage's failure first (the encoder only saw the rows stop), then the encoder's own.
                        if let pulled = chain.pullFailure { throw pulled }
                        do { try encoded.get() } catch var error as ImageError {
                            error.path = destination
                            throw error
                        }
                    }
                }
            } catch {
                failure.withLock { $0 = error }
                throw error
            }
        }) else {
            throw ImageError(.unreadable, path: destination, reason: "no thread could be started to write it")
        }
        self.encoder = encoder
    }

    /// Hands `strip`, the pushed picture's rows from `top`, to the side's chain once there is room.
    func write(_ strip: Image, top: Int) throws {
        guard let ring, let pushed else { return }
        guard pushed.waitForRoom(upTo: top + strip.height) else {
            throw failure.withLock { $0 } ?? ImageError(.interrupted, path: destination, reason: "its encoder stopped")
        }
        let bytes = size.width * strip.channelCount
        for y in 0..<strip.height {
            (ring + (ringRows > 0 ? (top + y) % ringRows : top + y) * rowStride).update(from: strip.rowStart(y), count: bytes)
        }
        pushed.made(top + strip.height)
    }

    /// Waits for the encoder to write the last row and land the file; throws its failure.
    func finish() throws {
        pushed?.finish()
        try encoder?.join()
        for (index, noted) in chain?.notes ?? [:] {
            if let (path, place) = places[index] { notes[path, default: [:]][place] = noted }
        }
        chain = nil
    }

    /// Stops the encoder, which then writes nothing, and waits for it (the run failed elsewhere).
    func abandon() {
        pushed?.finish()
        pushed?.stop()
        _ = try? encoder?.join()
    }
}
