import Dispatch

/// The stages of a streamed run between the decoder's ring of rows and the encoder, pulled a
/// strip at a time: the encoder asks for rows, and each level makes what the one after it needs.
///
/// Level 0 is the decode ring with the point stages before the first area or resample stage,
/// worked in place strip by strip as rows come. Each area or resample stage starts a level of
/// its own, with its own size: for a strip of its output it asks the stage which rows of the
/// level before it needs (`Transform.inputRows(forOutput:of:)`: an area stage's rows
/// `radius` above and below, a crop's rows further down, a reduction's many rows), copies that
/// window out (the ring there may wrap), keeps the strip's rows of what the stage makes from it
/// in a ring of its own, at its own width, and the point stages after it work there in place.
/// Every ring holds only the rows still to be read, so memory follows the strips and the
/// windows, not the picture. The rows are the whole run's byte for byte (a stage's class is its
/// promise, held by tests).
///
/// A chain is used by one thread at a time (the write-behind thread of a streamed run, or the
/// encoder's), hence `@unchecked Sendable`.
final class StripChain: @unchecked Sendable {
    /// A run of point stages, and the area, resample or turning stage before it (none for level 0).
    struct Level {
        let windowed: (index: Int, stage: any Transform)?
        var points: [(index: Int, stage: any Transform)]
        /// The turn or mirror of a stage that only moves whole pixels and needs rows out of order
        /// (`rotate 90`, `flip`): its level keeps the rows below in a `TileCache` and reads each
        /// strip's band of them from there.
        var turn: Dihedral? = nil
        /// A stage that makes each output tile from input pixels anywhere (`rotate angle=`): its
        /// level keeps the rows below in a `TileCache` too, and reads each tile's input from there.
        var warp: (any WarpingStage)? = nil
        /// The decode's reduction, for the first stage when the decode was reduced for it
        /// (shrink-on-load): its rows are the decode's, its geometry the full picture's.
        var reduction: DecodeReduction? = nil
        /// Whether the level's rows are RGBA (a stage at or before it added alpha), else RGB.
        var hasAlpha = false
        /// The windowed stage is a point stage that adds or drops alpha: it cannot work in the
        /// rows before it, so it makes rows of its own from exactly the same rows.
        var changesAlpha = false
        /// The windowed stage is a whole stage (a smart crop): its level gathers every row below
        /// into one picture, a cache in memory, and makes its output from it at once; the
        /// levels before and after it still stream.
        var gathers = false

        /// Whether the level reads the rows below out of order, through a tile cache.
        var readsTiles: Bool { turn != nil || warp != nil }

        /// Whether the level reads every row below before it makes any (a tile cache, or the
        /// gathered picture).
        var readsAll: Bool { readsTiles || gathers }

        /// Whether a stage of the level must see every row, whatever the levels after it read:
        /// a tee or a branch writing another file.
        var seesEveryRow: Bool { points.contains { ($0.stage as? SideOutputFeed)?.output != nil } }

        /// The level with its stages' places in the pipeline given by `number`.
        func renumbered(_ number: (Int) -> Int) -> Level {
            Level(windowed: windowed.map { (number($0.index), $0.stage) }, points: points.map { (number($0.index), $0.stage) }, turn: turn,
                  warp: warp, reduction: reduction, hasAlpha: hasAlpha, changesAlpha: changesAlpha, gathers: gathers)
        }

        /// The stage's output from the level below's `input`.
        func outputSize(from input: Size) throws -> Size { try windowed!.stage.outputSize(for: reduction?.fullSize ?? input) }

        /// The rows of the level below, `input` large, that output `rows` are made from.
        func inputRows(forOutput rows: Range<Int>, input: Size) throws -> Range<Int> {
            if changesAlpha { return rows }
            return try windowed!.stage.inputRows(forOutput: rows, of: reduction ?? .none(input))
        }

        /// Output `rows` from `window`, the rows of the level below (`input` large) from `top`.
        func makeRows(_ rows: Range<Int>, fromWindow window: Image, windowTop top: Int, input: Size) throws -> Image {
            try windowed!.stage.makeRows(rows, from: StageInput(pixels: window, top: top, picture: reduction ?? .none(input)))
        }
    }

    /// A level's rows, worked out from the input's size before any pixel is made.
    struct Layout: Equatable {
        /// The level's picture: its stage's output (the input for level 0).
        let size: Size
        let rowStride: Int
        /// Rows made at a time: a ring holds a whole number of them, so a strip never wraps.
        let strip: Int
        /// The most rows of the level before that the window of one strip holds (0 for level 0).
        let window: Int
        /// RGBA rows, else RGB.
        var hasAlpha = false
        var channels: Int { hasAlpha ? 4 : 3 }
    }

    /// One level's ring: row y in slot y % rows (`rows` 0: the whole picture, row y in slot y).
    private struct Ring {
        let pixels: UnsafeMutablePointer<UInt8>
        let rows: Int
        /// Rows of the picture made so far at this level.
        var made = 0
        /// Where the last window read from this level began: rows above it are done with.
        var read = 0
    }

    let levels: [Level]
    let layouts: [Layout]
    /// Makes rows of level 0 in place, up to the row given, and says how many there are (fewer
    /// when the decode failed): the decode ring's strips through the color conversion and the
    /// point stages of level 0.
    private let makeDecoded: (Int) throws -> Int
    /// Says the level-0 ring's rows before the one given are no longer needed.
    private let releaseDecoded: (Int) -> Void
    private var rings: [Ring]
    /// Each turning level's copy of the rows below it, once they are all made.
    private var caches: [TileCache?]
    /// Each gathering level's output, made once every row below it is.
    private var gathered: [Image?]
    /// What each gathering level's stage noted as it made its output (a smart crop's window), by
    /// the stage's number in the run.
    private(set) var notes: [Int: [StageNote]] = [:]
    /// Whether each level's tile cache is kept in memory (`tilesInMemory(_:_:room:)`).
    private let tilesInMemory: [Bool]
    /// Each windowed level's window, reused strip after strip.
    private var windows: [UnsafeMutablePointer<UInt8>?]
    /// Where a stage's failure is given its name and place in the pipeline.
    private let located: (Int, () throws -> Image) throws -> Image

    /// Bytes of rows a level's strip, and a resample level's window, hold at most, where the
    /// picture is wide enough for that to count: the rows that keep every core busy on a photo
    /// (5472 px, 16 KiB a row) are far below it, while on a 65000-px panorama a strip of 160
    /// rows, with the window and rings that follow it, held 150 MB. A narrower strip costs an
    /// area stage its 2r extra rows more often; the filters share the columns out between the
    /// cores (`RowBands.run(rows:columns:…)`), so those rows are read once a strip.
    static let stripBytes = 4 << 20

    /// `stripBytes` for each of a chain's `levels` windowed levels: their strips together hold
    /// about 16 MiB, as each level keeps a ring and a window of a few strips' rows: fifty area
    /// stages on a photo, each with a photo's 160-row strips, held 543 MB.
    static func stripBytes(levels: Int) -> Int { min(stripBytes, (16 << 20) / max(1, levels)) }

    /// Rows an area level makes at a time: enough for a band of at least four windows' height per
    /// core (the filters' own bands, `RowBands`, then run on every core), and at least 128, so
    /// that the extra rows each band filters (2 × radius) stay a small share of the work; at most
    /// 1024, so that a wide kernel's strips stay far from the picture, and at most `stripBytes`
    /// of rows `rowBytes` long; whole decode strips. Where fewer rows than a decode strip fit
    /// (many levels share the bytes), a multiple of 8 rows, but at least four times the radius,
    /// so that the window's extra rows stay within half the strip's work: fifty 3-row stages on
    /// a 20-megapixel photo then hold 16-row strips and peak near 90 MiB, not 154.
    static func areaStripRows(radius: Int, rowBytes: Int, stripBytes: Int = stripBytes) -> Int {
        let rows = min(1024, max(128, System.coreCount * 4 * (2 * radius + 1)))
        let fitting = min(rows, max(1, stripBytes / max(1, rowBytes))), decodeStrip = Pipeline.streamedStripRows
        guard fitting < decodeStrip else { return wholeDecodeStrips(fitting) }
        return min(decodeStrip, max(8, fitting / 8 * 8, (4 * radius + 7) / 8 * 8))
    }

    /// Rows a resample level makes at a time, from `input` rows `inputRowBytes` long to `output`:
    /// 128 (two row bands of the resampler on each of two cores, each band filtering a kernel's
    /// height of rows again), fewer for a large reduction so that a strip's window stays near
    /// 1024 input rows and near 4 × `stripBytes`; whole decode strips, or, below one, a multiple
    /// of 8 rows.
    static func resampleStripRows(input: Int, output: Int, inputRowBytes: Int, stripBytes: Int = stripBytes) -> Int {
        let windowRows = min(1024, max(64, 4 * stripBytes / max(1, inputRowBytes)))
        let rows = min(128, Int(Double(windowRows) * Double(output) / Double(max(1, input))))
        let decodeStrip = Pipeline.streamedStripRows
        return rows >= decodeStrip ? rows / decodeStrip * decodeStrip : max(8, rows / 8 * 8)
    }

    private static func wholeDecodeStrips(_ rows: Int) -> Int {
        let decodeStrip = Pipeline.streamedStripRows
        return (rows + decodeStrip - 1) / decodeStrip * decodeStrip
    }

    /// The levels of `transforms` on a `size` input (RGBA rows with `inputHasAlpha`, else RGB),
    /// when every one is point, area or resample, or turns or mirrors the picture
    /// (`PixelRearrangement.orient`) or warps it (`WarpingStage`), both read through a tile
    /// cache of RGB or RGBA pixels; nil otherwise. A stage that adds alpha (or drops it) makes
    /// its level's rows RGBA (or RGB); a point stage that does so starts a level. A `reduction`
    /// is the decode's (`size` is then the reduced one): the first stage must be a resample stage
    /// that works on such rows. With `surveysAsPoints`, a
    /// `SurveyingStage` whose surveyed stage is a point or resample stage counts as that (a
    /// resample one as the largest it can be, every row from its own): the levels then plan a
    /// run (its memory, whether it streams) but cannot run until each survey is made.
    static func levels(of transforms: [any Transform], size: Size, reduction: DecodeReduction? = nil, inputHasAlpha: Bool = false,
                       surveysAsPoints: Bool = false) -> [Level]? {
        var levels = [Level(windowed: nil, points: [], hasAlpha: inputHasAlpha)]
        var size = size
        // A trace's feed of the decoded rows may come before the stage that reads a reduced decode.
        let first = transforms.prefix { ($0 as? SideOutputFeed)?.tracesDecode == true }.count
        if let reduction {
            guard first < transforms.count, transforms[first].stageClass == .resample,
                  (try? transforms[first].inputRows(forOutput: 0..<1, of: reduction)) != nil else { return nil }
        }
        var hasAlpha = inputHasAlpha
        for (offset, stage) in transforms.enumerated() {
            let surveyedClass = surveysAsPoints ? (stage as? any SurveyingStage)?.surveyedClass : nil
            let surveyed = surveyedClass == .point || surveyedClass == .resample ? surveyedClass : nil
            let alpha = stage.outputHasAlpha(inputHasAlpha: hasAlpha)
            switch surveyed ?? stage.stageClass {
            case .point where alpha != hasAlpha:
                levels.append(Level(windowed: (offset + 1, stage), points: [], hasAlpha: alpha, changesAlpha: true))
            case .point:
                levels[levels.count - 1].points.append((offset + 1, stage))
            case let .area(radius) where radius >= 0:
                levels.append(Level(windowed: (offset + 1, stage), points: [], hasAlpha: alpha))
            case .resample:
                levels.append(Level(windowed: (offset + 1, stage), points: [], reduction: offset == first ? reduction : nil, hasAlpha: alpha))
            case .whole:
                if let warp = stage as? any WarpingStage, warp.warps(size) {
                    levels.append(Level(windowed: (offset + 1, stage), points: [], warp: warp, hasAlpha: alpha))
                } else if alpha == hasAlpha, case let .orient(turn)? = try? stage.rearranging?.rearrangement(for: size) {
                    levels.append(Level(windowed: (offset + 1, stage), points: [], turn: turn, hasAlpha: alpha))
                } else {
                    // The whole picture is a cache in front of the stage; a survey still surveys,
                    // and a size known only from the pixels cannot be laid out.
                    guard !stage.awaitsSurvey, !stage.outputSizeIsUpperBound else { return nil }
                    levels.append(Level(windowed: (offset + 1, stage), points: [], hasAlpha: alpha, gathers: true))
                }
            default: return nil
            }
            hasAlpha = alpha
            guard let next = try? stage.outputSize(for: offset == first ? reduction?.fullSize ?? size : size) else { return nil }
            size = next
        }
        return levels
    }

    /// The levels of `transforms` on a picture stored `size` that is first turned upright by
    /// `orientation` (an EXIF orientation, 1–8): a turning level before every stage, which the
    /// point stages that led the pipeline follow.
    static func levels(of transforms: [any Transform], storedSize size: Size, orientation: Int, reduction: DecodeReduction? = nil,
                       inputHasAlpha: Bool = false, surveysAsPoints: Bool = false) -> [Level]? {
        let turn = Dihedral(exifOrientation: orientation)
        guard var levels = levels(of: transforms, size: turn.size(of: size), reduction: reduction, inputHasAlpha: inputHasAlpha,
                                  surveysAsPoints: surveysAsPoints) else { return nil }
        guard turn != .identity else { return levels }
        let leading = levels[0].points
        levels[0] = Level(windowed: nil, points: [], hasAlpha: inputHasAlpha)
        levels.insert(Level(windowed: (0, OrientationTurn(turn: turn)), points: leading, turn: turn, hasAlpha: inputHasAlpha), at: 1)
        return levels
    }

    /// Output rows a turning level makes at a time: a tile's height, so that each strip reads
    /// whole tiles.
    static let turnStripRows = 64

    /// Each level's size, strip and window from a `size` input (rows `rowStride` bytes apart,
    /// decoded `decodeStrip` rows at a time); `stripRows`, when given, is every other level's
    /// strip (tests). Every window a strip will ask for is asked here, and checked: inside the
    /// level before, never moving back.
    static func layouts(of levels: [Level], size: Size, rowStride: Int, decodeStrip: Int, stripRows: Int? = nil) throws -> [Layout] {
        var layouts = [Layout(size: size, rowStride: rowStride, strip: decodeStrip, window: 0, hasAlpha: levels[0].hasAlpha)]
        let bytes = stripBytes(levels: levels.count { !$0.readsAll } - 1)
        for level in levels.dropFirst() {
            let (_, stage) = level.windowed!
            let input = layouts[layouts.count - 1].size
            if level.readsAll {
                // The rows below are copied into the tile cache (or the gathered picture) a strip at a time.
                let output = try level.turn.map { $0.size(of: input) } ?? stage.outputSize(for: input)
                layouts.append(Layout(size: output, rowStride: output.width * (level.hasAlpha ? 4 : 3), strip: stripRows ?? turnStripRows,
                                      window: layouts[layouts.count - 1].strip, hasAlpha: level.hasAlpha))
                continue
            }
            let output = level.changesAlpha ? input : try level.outputSize(from: input)
            let strip = switch stage.stageClass {
            // A point stage that adds or drops alpha works strip for strip on the rows below.
            case _ where level.changesAlpha: stripRows ?? layouts[layouts.count - 1].strip
            case let .area(radius): stripRows ?? areaStripRows(radius: radius, rowBytes: max(layouts[layouts.count - 1].rowStride, output.width * (level.hasAlpha ? 4 : 3)),
                                                              stripBytes: bytes)
            default: stripRows ?? resampleStripRows(input: input.height, output: output.height, inputRowBytes: layouts[layouts.count - 1].rowStride,
                                                    stripBytes: bytes)
            }
            var window = 0, top = 0
            for first in stride(from: 0, to: output.height, by: strip) {
                let rows = try checkedInputRows(level, first..<min(output.height, first + strip), input: input, after: top)
                window = max(window, rows.count)
                top = rows.lowerBound
            }
            layouts.append(Layout(size: output, rowStride: output.width * (level.hasAlpha ? 4 : 3), strip: strip, window: window,
                                  hasAlpha: level.hasAlpha))
        }
        return layouts
    }

    /// The input rows `stage` says output `rows` need, checked: inside the input, not empty,
    /// starting no higher than `top` (the last window's). All are asked before the run
    /// (`layouts(of:…)`), where a stage that breaks the promise is caught.
    private static func checkedInputRows(_ level: Level, _ rows: Range<Int>, input: Size, after top: Int) throws -> Range<Int> {
        let needed = try level.inputRows(forOutput: rows, input: input)
        guard !needed.isEmpty, needed.lowerBound >= top, needed.upperBound <= input.height else {
            throw StageError("\(level.windowed!.stage.stageSchema.name) says output rows \(rows) need input rows \(needed) of \(input.height), though a window must lie inside the input, hold a row, and never move back (a bug in the stage)")
        }
        return needed
    }

    /// Rows the level-0 ring must hold at least for the level after it: its largest window, the
    /// rows made past it to the next whole decode strip, and room for the decoder to go on
    /// meanwhile.
    static func decodeRingNeeds(_ levels: [Level], size: Size, rowStride: Int, decodeStrip: Int, stripRows: Int? = nil) throws -> Int {
        guard levels.count > 1 else { return 0 }
        return try layouts(of: Array(levels.prefix(2)), size: size, rowStride: rowStride, decodeStrip: decodeStrip,
                           stripRows: stripRows)[1].window + 2 * decodeStrip
    }

    /// `stripRows`, when given, is every level's strip (tests); level 0's is `decodeStrip`.
    init(levels: [Level], size: Size, rowStride: Int, decodeRing: UnsafeMutablePointer<UInt8>, decodeRingRows: Int, decodeStrip: Int,
         stripRows: Int? = nil, writeBehind: Bool = false, tileRoom: Int = TileCache.discThreshold, makeDecoded: @escaping (Int) throws -> Int, releaseDecoded: @escaping (Int) -> Void,
         located: @escaping (Int, () throws -> Image) throws -> Image) throws {
        let layouts = try Self.layouts(of: levels, size: size, rowStride: rowStride, decodeStrip: decodeStrip, stripRows: stripRows)
        self.levels = levels
        self.layouts = layouts
        self.makeDecoded = makeDecoded
        self.releaseDecoded = releaseDecoded
        self.located = located
        rings = [Ring(pixels: decodeRing, rows: decodeRingRows)]
        caches = Array(repeating: nil, count: levels.count)
        gathered = Array(repeating: nil, count: levels.count)
        var room = tileRoom
        tilesInMemory = Self.tilesInMemory(levels, layouts, room: &room)
        windows = [nil]
        for level in layouts.indices.dropFirst() {
            let layout = layouts[level], rows = Self.ringRows(layouts, level: level, writeBehind: writeBehind)
            rings.append(Ring(pixels: .allocate(capacity: rows * layout.rowStride), rows: rows < layout.size.height ? rows : 0))
            // A level that reads every row below (into tiles or a gathered picture) copies no window.
            windows.append(levels[level].readsAll ? nil : .allocate(capacity: layout.window * layouts[level - 1].rowStride))
        }
        let last = layouts[layouts.count - 1], lastRing = rings[rings.count - 1]
        output = (lastRing.pixels, lastRing.rows, last.size, last.rowStride, last.hasAlpha)
    }

    /// Rows `level`'s ring holds. The next level reads a window at once, made whole strips at a
    /// time, so up to a strip less a row past it, while rows from the window's top stay; the
    /// encoder asks only once it has written every row made, so the last level needs a strip, or
    /// two when the next is made while the encoder writes the one before (`WriteBehind`). Whole
    /// strips (a strip never wraps), at most the picture.
    private static func ringRows(_ layouts: [Layout], level: Int, writeBehind: Bool) -> Int {
        let layout = layouts[level], strip = layout.strip
        let needed = level + 1 < layouts.count ? layouts[level + 1].window + strip - 1 : (writeBehind ? 2 : 1) * strip
        return min(layout.size.height, (needed + strip - 1) / strip * strip)
    }

    /// Which turning levels keep their tiles in memory: the first ones whose tiles fit, all
    /// together, within `room` bytes, which they use up; the others' go to a temporary file. The
    /// caches of one run (its own chain's and its side outputs') share the disc threshold, as
    /// they are all alive at once: twenty `rotate 90`s of a 20-megapixel photo each kept 60 MB in
    /// memory (1.5 GB, where the whole-picture run held 240 MB).
    static func tilesInMemory(_ levels: [Level], _ layouts: [Layout], room: inout Int) -> [Bool] {
        levels.indices.map { level in
            guard level > 0, levels[level].readsTiles, let tiles = TileCache.storedBytes(for: layouts[level - 1].size, channels: layouts[level - 1].channels),
                  tiles <= room else { return false }
            room -= tiles
            return true
        }
    }

    /// Bytes each level of a chain on a `size` input holds beside the decode ring: its ring and
    /// window, and a turning level's tiles while they stay in memory (within `tileRoom`, as the
    /// chain made with it keeps them); 0 for the first, whose rows are the decode ring's. For a
    /// memory budget, before any pixel is decoded.
    static func levelBytes(_ levels: [Level], size: Size, rowStride: Int, decodeStrip: Int, writeBehind: Bool,
                           tileRoom: Int = TileCache.discThreshold) throws -> [Int] {
        let layouts = try layouts(of: levels, size: size, rowStride: rowStride, decodeStrip: decodeStrip)
        var room = tileRoom
        let inMemory = tilesInMemory(levels, layouts, room: &room)
        return layouts.indices.map { level in
            guard level > 0 else { return 0 }
            let layout = layouts[level], below = layouts[level - 1]
            var bytes = ringRows(layouts, level: level, writeBehind: writeBehind) * layout.rowStride + (levels[level].readsAll ? 0 : layout.window * below.rowStride)
            if levels[level].readsTiles {
                // The tiles while they stay in memory, the cache's own band and tile, and a strip's
                // input read back and its turned copy, both a strip of output large.
                bytes += (inMemory[level] ? TileCache.storedBytes(for: below.size, channels: below.channels) ?? 0 : 0)
                    + TileCache.bufferBytes(for: below.size, channels: below.channels)
                    + 2 * min(layout.strip, layout.size.height) * layout.rowStride
            } else if levels[level].gathers {
                // The picture below, gathered, and the stage's output made from it.
                bytes += min(Int.max / 4, below.size.height * below.rowStride) + min(Int.max / 4, layout.size.height * layout.rowStride)
            }
            return bytes
        }
    }

    deinit {
        for ring in rings.dropFirst() { ring.pixels.deallocate() }
        for window in windows { window?.deallocate() }
    }

    /// Where row `y` of `level`'s ring is.
    private func slot(_ level: Int, _ y: Int) -> UnsafeMutablePointer<UInt8> {
        let ring = rings[level]
        return ring.pixels + (ring.rows > 0 ? y % ring.rows : y) * layouts[level].rowStride
    }

    /// The encoder's side: the last level's pixels, how many rows are in its ring (0: all), the
    /// picture they make, the bytes from one row to the next, and whether they are RGBA. Fixed
    /// at init: the encoder's thread reads it while another may be making rows, which changes
    /// `rings` (ThreadSanitizer saw the race when this was read from there).
    let output: (pixels: UnsafeMutablePointer<UInt8>, ringRows: Int, size: Size, rowStride: Int, hasAlpha: Bool)

    /// Rows the last level makes at a time: what a write-behind thread asks for.
    var outputStrip: Int { layouts[layouts.count - 1].strip }

    /// The last level's rows as an encoder reads them: made as it asks through `rowsReady`, or,
    /// when that is nil, by pulling the chain from the encoder's thread, a stage's failure then
    /// kept in `pullFailure` (the encoder sees only that the rows stop), and the processor time
    /// each pull takes told to `makingRows`.
    func encoderFeed(rowsReady: RowFeed.RowsReady? = nil, makingRows: ((Double) -> Void)? = nil) -> RowFeed {
        let (pixels, ringRows, size, rowStride, hasAlpha) = output
        return RowFeed(pixels: pixels, size: size, rowStride: rowStride, channels: hasAlpha ? 4 : 3, ringRows: ringRows,
                       rowsReady: rowsReady ?? { [unowned self] needed in
                           let start = makingRows == nil ? 0 : CodecTime.thisThread()
                           defer { makingRows?(CodecTime.thisThread() - start) }
                           do {
                               return try rows(upTo: needed)
                           } catch {
                               pullFailure = error
                               return 0
                           }
                       })
    }

    /// The failure of a stage while the encoder pulled the chain (`encoderFeed`).
    private(set) var pullFailure: (any Error)?

    /// A chain's `makeDecoded` over a ring of a `height`-row picture: strip after strip of
    /// `strip` rows up to the one holding the row wanted, each once `arrived` says its rows have
    /// come (fewer: they never will, and the rows stop there), put through `process` in place
    /// (its top row and its rows).
    static func stripByStrip(height: Int, strip: Int, arrived: @escaping (_ rows: Int) -> Int,
                             process: @escaping (_ top: Int, _ rows: Int) throws -> Void) -> (Int) throws -> Int {
        var processed = 0
        return { wanted in
            while processed < min(wanted, height) {
                let end = min(height, processed + strip)
                guard arrived(end) >= end else { break }
                try process(processed, end - processed)
                processed = end
            }
            return processed
        }
    }

    /// Makes the last level's rows up to `count` (the encoder's `needed`) and says how many are
    /// made: fewer only when the decode failed. The encoder has written every row before
    /// `count - 1`, whose slots may now be rewritten; with `releasingDecoded` false and no level
    /// past the decode, the caller tells the decoder which rows the encoder is done with. Once
    /// the last row is made, the decode is read to its end, as the ordinary run reads it (a crop
    /// may leave rows below unread), so that the same damage fails the same way.
    func rows(upTo count: Int, releasingDecoded: Bool = true) throws -> Int {
        let last = levels.count - 1
        if last == 0, releasingDecoded { releaseDecoded(count - 1) }
        let made = try make(level: last, upTo: count)
        if last > 0, made == layouts[last].size.height {
            // A tee before a crop still writes the rows the crop leaves out.
            for level in 1..<last where levels[level].seesEveryRow {
                _ = try make(level: level, upTo: layouts[level].size.height)
            }
            // A decode failing there fails the run once the decoder is joined.
            _ = try pull(level: 0, upTo: layouts[0].size.height, from: layouts[0].size.height)
        }
        return made
    }

    /// Makes `level`'s rows up to `high` for a window from `low`, and says whether they are
    /// there (not when the decode failed). The decode ring is pulled a decode strip at a time,
    /// each time letting go of the rows made above `low`, so that the decoder always has room.
    private func pull(level: Int, upTo high: Int, from low: Int) throws -> Bool {
        guard level == 0 else { return try make(level: level, upTo: high) >= high }
        // The decoder waits for room: a window taller than the ring would wait for ever.
        guard rings[0].rows == 0 || high - low + layouts[0].strip <= rings[0].rows else {
            throw StageError("a window of \(high - low) rows does not fit the decode ring of \(rings[0].rows) (a bug in the streamed run)")
        }
        while rings[0].made < high {
            // Rows not yet through level 0's stages stay: the decoder must not rewrite them first.
            releaseDecoded(min(low, rings[0].made))
            let wanted = min(high, rings[0].made + layouts[0].strip)
            let made = try makeDecoded(wanted)
            rings[0].made = made
            guard made >= wanted else { return false } // the decode failed
        }
        releaseDecoded(min(low, rings[0].made))
        return true
    }

    private func make(level: Int, upTo wanted: Int) throws -> Int {
        guard level > 0 else {
            rings[0].made = try makeDecoded(wanted)
            return rings[0].made
        }
        if let turn = levels[level].turn { return try makeTurned(level: level, by: turn, upTo: wanted) }
        if let warp = levels[level].warp { return try makeWarped(level: level, by: warp, upTo: wanted) }
        if levels[level].gathers { return try makeGathered(level: level, upTo: wanted) }
        let layout = layouts[level], below = layouts[level - 1]
        let height = layout.size.height, target = min(height, wanted)
        let (index, stage) = levels[level].windowed!
        while rings[level].made < target {
            let first = rings[level].made, end = min(height, first + layout.strip)
            let needed = try Self.checkedInputRows(levels[level], first..<end, input: below.size, after: rings[level - 1].read)
            rings[level - 1].read = needed.lowerBound
            guard needed.count <= layout.window else { // the rings are sized by the windows asked for before the run
                throw StageError("\(stage.stageSchema.name) asked for input rows \(needed) for output rows \(first..<end), more than before the run (a bug in the stage)")
            }
            guard try pull(level: level - 1, upTo: needed.upperBound, from: needed.lowerBound) else { return rings[level].made } // the decode failed
            let ringBelow = rings[level - 1].rows
            guard level == 1 || ringBelow == 0 || needed.lowerBound >= rings[level - 1].made - ringBelow else {
                throw StageError("a window of rows \(needed) is no longer in its ring (a bug in the streamed run)")
            }
            // The window: the level before's rows where they lie in its ring, or copied out of it
            // where the ring wraps within them (they stay there until the strip is made).
            let window: UnsafeMutablePointer<UInt8>
            if ringBelow == 0 || needed.lowerBound % ringBelow + needed.count <= ringBelow {
                window = slot(level - 1, needed.lowerBound)
            } else {
                window = windows[level]!
                for y in needed {
                    (window + (y - needed.lowerBound) * below.rowStride).update(from: slot(level - 1, y), count: below.size.width * below.channels)
                }
            }
            let strip = Size(layout.size.width, end - first)
            let made = try located(index) {
                let view = try Image.viewing(rows: window, size: Size(below.size.width, needed.count), rowStride: below.rowStride,
                                             hasAlpha: below.hasAlpha)
                let result = try levels[level].makeRows(first..<end, fromWindow: view, windowTop: needed.lowerBound, input: below.size)
                guard result.size == strip, result.hasAlpha == layout.hasAlpha else {
                    throw Self.brokenPromise(result, of: strip, alpha: layout.hasAlpha, "from a window of input rows")
                }
                return result
            }
            // A stopped stage leaves its rows unmade: they never reach the ring.
            try StageContext.checkCancelled()
            for y in first..<end { slot(level, y).update(from: made.rowStart(y - first), count: strip.width * layout.channels) }
            try Self.applyPoints(levels[level].points, toRows: slot(level, first), size: strip, rowStride: layout.rowStride,
                                 hasAlpha: layout.hasAlpha, at: StripPosition(top: first, pictureSize: layout.size), located: located)
            rings[level].made = end
            // The next strip's window starts there: the decoder may go on over the rows above.
            if level == 1, end < height {
                let next = try levels[level].inputRows(forOutput: end..<min(height, end + layout.strip), input: below.size)
                releaseDecoded(min(rings[0].made, next.lowerBound))
            }
        }
        return rings[level].made
    }

    /// A turning level's rows up to `wanted`: the first time, every row of the level below goes
    /// into a tile cache, a strip at a time as it is made; then each strip of output is the band
    /// of the picture below that turns into it, read from the cache and turned.
    private func makeTurned(level: Int, by turn: Dihedral, upTo wanted: Int) throws -> Int {
        let layout = layouts[level]
        let (index, _) = levels[level].windowed!
        guard let cache = try filledCache(level: level) else { return rings[level].made } // the decode failed
        let back = turn.inverse
        let height = layout.size.height, target = min(height, wanted)
        while rings[level].made < target {
            let first = rings[level].made, end = min(height, first + layout.strip)
            let strip = Size(layout.size.width, end - first)
            let band = back.map(Rect(x: 0, y: first, width: strip.width, height: strip.height), in: layout.size)
            let made = try located(index) {
                let turned = try cache.picture(of: band).turned(by: turn)
                guard turned.size == strip else { throw Self.brokenPromise(turned, of: strip, alpha: layout.hasAlpha, "by turning whole pixels") }
                return turned
            }
            try StageContext.checkCancelled()
            for y in first..<end { slot(level, y).update(from: made.rowStart(y - first), count: strip.width * layout.channels) }
            try Self.applyPoints(levels[level].points, toRows: slot(level, first), size: strip, rowStride: layout.rowStride, hasAlpha: layout.hasAlpha,
                                 at: StripPosition(top: first, pictureSize: layout.size), located: located)
            rings[level].made = end
        }
        return rings[level].made
    }

    /// The tile cache of `level` (a turning or warping one), every row of the level below in it:
    /// the first time, they go in a strip at a time as they are made. Nil when the decode failed.
    private func filledCache(level: Int) throws -> TileCache? {
        if let cache = caches[level] { return cache }
        let below = layouts[level - 1]
        let cache = try TileCache(size: below.size, hasAlpha: below.hasAlpha, threshold: tilesInMemory[level] ? Int.max : 0)
        var y = 0
        while y < below.size.height {
            let end = min(below.size.height, y + below.strip)
            guard try pull(level: level - 1, upTo: end, from: y) else { return nil }
            for row in y..<end { try cache.append(slot(level - 1, row), count: 1, rowStride: below.rowStride) }
            rings[level - 1].read = end
            y = end
        }
        caches[level] = cache
        return cache
    }

    /// A gathering level's rows up to `wanted`: the first time, every row of the level below is
    /// copied into one picture as it is made, and the stage makes its whole output from it;
    /// then each strip is that output's rows, with the level's point stages on them.
    private func makeGathered(level: Int, upTo wanted: Int) throws -> Int {
        let layout = layouts[level], below = layouts[level - 1]
        let (index, stage) = levels[level].windowed!
        let height = layout.size.height, target = min(height, wanted)
        guard rings[level].made < target else { return rings[level].made }
        if gathered[level] == nil {
            var complete = true
            let picture = try Image.make(size: below.size, hasAlpha: below.hasAlpha) { writer in
                var y = 0
                while y < below.size.height {
                    let end = min(below.size.height, y + below.strip)
                    guard try pull(level: level - 1, upTo: end, from: y) else {
                        complete = false // the decode failed: the run fails with it
                        return
                    }
                    for row in y..<end { (writer.base + row * writer.rowStride).update(from: slot(level - 1, row), count: below.size.width * below.channels) }
                    rings[level - 1].read = end
                    y = end
                }
            }
            guard complete else { return rings[level].made }
            gathered[level] = try located(index) {
                let (made, noted) = try StageNote.collecting { try stage.makeRows(0..<layout.size.height, from: .whole(picture)) }
                guard made.size == layout.size, made.hasAlpha == layout.hasAlpha else {
                    throw Self.brokenPromise(made, of: layout.size, alpha: layout.hasAlpha, "from the whole picture")
                }
                if !noted.isEmpty { notes[index] = noted }
                return made
            }
        }
        let made = gathered[level]!
        while rings[level].made < target {
            let first = rings[level].made, end = min(height, first + layout.strip)
            for y in first..<end { slot(level, y).update(from: made.rowStart(y), count: layout.size.width * layout.channels) }
            try Self.applyPoints(levels[level].points, toRows: slot(level, first), size: Size(layout.size.width, end - first),
                                 rowStride: layout.rowStride, hasAlpha: layout.hasAlpha,
                                 at: StripPosition(top: first, pictureSize: layout.size), located: located)
            rings[level].made = end
        }
        // The output is let go with its last row.
        if rings[level].made == height { gathered[level] = nil }
        return rings[level].made
    }

    /// Output tiles a warping level makes at a time across a strip: wide enough that a tile's
    /// fixed costs vanish, narrow enough that the input under a turned tile stays small.
    static let warpTileColumns = 256

    /// Tiles a warping level makes at once: four per core, so that the cores stay busy while
    /// the inputs and outputs in flight stay a few hundred kilobytes.
    static var warpTilesAtOnce: Int { 4 * System.coreCount }

    /// A warping level's rows up to `wanted`: each strip of output, tile by tile across, made by
    /// the stage from the input rectangle it names, read from the tile cache.
    private func makeWarped(level: Int, by warp: any WarpingStage, upTo wanted: Int) throws -> Int {
        let layout = layouts[level], input = layouts[level - 1].size
        let (index, _) = levels[level].windowed!
        guard let cache = try filledCache(level: level) else { return rings[level].made } // the decode failed
        let height = layout.size.height, target = min(height, wanted)
        while rings[level].made < target {
            let first = rings[level].made, end = min(height, first + layout.strip)
            let tiles = stride(from: 0, to: layout.size.width, by: Self.warpTileColumns).map { left in
                Rect(x: left, y: first, width: min(Self.warpTileColumns, layout.size.width - left), height: end - first)
            }
            let strip = try located(index) {
                try Image.make(size: Size(layout.size.width, end - first), hasAlpha: layout.hasAlpha) { writer in
                    // A few tiles per core at a time: the input under each read from the cache
                    // here (it is not shared between threads), the tiles then made on every core.
                    // Not the whole strip's at once: on a 24000-pixel-wide picture turned 30°,
                    // their inputs and outputs held some 24 MB.
                    for batch in stride(from: 0, to: tiles.count, by: Self.warpTilesAtOnce) {
                        let part = Array(tiles[batch..<min(tiles.count, batch + Self.warpTilesAtOnce)])
                        let sources = try part.map { tile in
                            let rect = try warp.inputRect(forOutput: tile, inputSize: input)
                            return (rect: rect, picture: try rect.map { try cache.picture(of: $0) })
                        }
                        let made = try Self.inParallel(part.count) { i in
                            try warp.render(part[i], from: sources[i].picture, at: sources[i].rect, inputSize: input)
                        }
                        for (tile, made) in zip(part, made) {
                            guard made.size == tile.size, made.hasAlpha == layout.hasAlpha else {
                                throw Self.brokenPromise(made, of: tile.size, alpha: layout.hasAlpha, "tile by tile")
                            }
                            for y in 0..<tile.height {
                                (writer.base + y * writer.rowStride + tile.x * layout.channels).update(from: made.rowStart(y), count: tile.width * layout.channels)
                            }
                        }
                    }
                }
            }
            try StageContext.checkCancelled()
            for y in first..<end { slot(level, y).update(from: strip.rowStart(y - first), count: strip.width * layout.channels) }
            try Self.applyPoints(levels[level].points, toRows: slot(level, first), size: Size(layout.size.width, end - first),
                                 rowStride: layout.rowStride, hasAlpha: layout.hasAlpha,
                                 at: StripPosition(top: first, pictureSize: layout.size), located: located)
            rings[level].made = end
        }
        return rings[level].made
    }

    /// `make(i)` for each of `count` indices, on every core, in the bound context; the first
    /// failure is thrown.
    private static func inParallel(_ count: Int, _ make: (Int) throws -> Image) throws -> [Image] {
        let context = StageContext.current
        let results = UnsafeMutableBufferPointer<Result<Image, any Error>?>.allocate(capacity: count)
        results.initialize(repeating: nil)
        defer { _ = results.deinitialize(); results.deallocate() }
        // Each index writes its own slot, and all are done before this returns.
        nonisolated(unsafe) let make = make, slots = results
        DispatchQueue.concurrentPerform(iterations: count) { i in
            slots[i] = context.bound { Result { try make(i) } }
        }
        return try results.map { try $0!.get() }
    }

    /// `stages` (point stages) on the `size` rows at `first`, in place (a strip never wraps),
    /// which lie at `position` in the picture; `located` gives a stage's failure its name and place.
    static func applyPoints(_ stages: [(index: Int, stage: any Transform)], toRows first: UnsafeMutablePointer<UInt8>, size: Size,
                            rowStride: Int, hasAlpha: Bool = false, at position: StripPosition, startingFrom start: Image? = nil,
                            located: (Int, () throws -> Image) throws -> Image) throws {
        let view = try Image.viewing(rows: first, size: size, rowStride: rowStride, hasAlpha: hasAlpha)
        var current = start ?? view
        for (index, stage) in stages {
            current = try located(index) {
                let result = try stage.makeRows(position.top..<(position.top + size.height),
                                                from: StageInput(pixels: current, top: position.top, picture: .none(position.pictureSize)))
                guard result.size == size, result.hasAlpha == hasAlpha else { throw brokenPromise(result, of: size, alpha: hasAlpha, "row by row") }
                return result
            }
        }
        try StageContext.checkCancelled()
        guard current !== view else { return }
        for y in 0..<size.height { (first + y * rowStride).update(from: current.rowStart(y), count: size.width * view.channelCount) }
    }

    /// A stage that made other rows than its class promised (`alpha`: RGBA rows were due).
    static func brokenPromise(_ result: Image, of size: Size, alpha: Bool, _ how: String) -> StageError {
        StageError("made \(result.size) \(result.hasAlpha ? "RGBA" : "RGB") of \(size) \(alpha ? "RGBA" : "RGB") rows, though it says it works \(how) (a bug in the stage)")
    }
}
