/// The stages of a streamed run between the decoder's ring of rows and the encoder, pulled a
/// strip at a time: the encoder asks for rows, and each level makes what the one after it needs.
///
/// Level 0 is the decode ring with the point stages before the first area stage, worked in place
/// strip by strip as rows come. Each area stage starts a level of its own: for a strip of its
/// output it reads the window of rows `radius` above and below from the level before (copied
/// out, since that ring may wrap), keeps the strip's rows of what it makes in a ring of its own,
/// and the point stages after it work there in place. Every ring holds only the rows still to be
/// read, so memory follows the strip and the radii, not the picture. The rows are the whole
/// run's byte for byte (a stage's class is its promise, held by tests).
final class StripChain {
    /// A run of point stages, and the area stage before it (none for level 0).
    struct Level {
        let area: (index: Int, stage: any Transform, radius: Int)?
        let points: [(index: Int, stage: any Transform)]
    }

    /// One level's ring: row y in slot y % rows (`rows` 0: the whole picture, row y in slot y).
    private struct Ring {
        let pixels: UnsafeMutablePointer<UInt8>
        let rows: Int
        /// Rows of the picture made so far at this level.
        var made = 0
        /// Rows made at a time: a ring holds a whole number of them, so a strip never wraps.
        let strip: Int
    }

    let levels: [Level]
    let size: Size
    let rowStride: Int
    /// Makes rows of level 0 in place, up to the row given, and says how many there are (fewer
    /// when the decode failed): the decode ring's strips through the color conversion and the
    /// point stages of level 0.
    private let makeDecoded: (Int) throws -> Int
    /// Says the level-0 ring's rows before the one given are no longer needed.
    private let releaseDecoded: (Int) -> Void
    private var rings: [Ring]
    /// Each area level's window, reused strip after strip.
    private var windows: [UnsafeMutablePointer<UInt8>?]
    /// Where a stage's failure is given its name and place in the pipeline.
    private let located: (Int, () throws -> Image) throws -> Image

    /// Rows an area level makes at a time: enough for a band of at least four windows' height per
    /// core (the filters' own bands, `RowBands`, then run on every core), and at least 128, so
    /// that the extra rows each band filters (2 × radius) stay a small share of the work; at most
    /// 1024, so that a wide kernel's strips stay far from the picture; whole decode strips.
    static func areaStripRows(radius: Int) -> Int {
        let rows = min(1024, max(128, System.coreCount * 4 * (2 * radius + 1)))
        let decodeStrip = Pipeline.streamedStripRows
        return (rows + decodeStrip - 1) / decodeStrip * decodeStrip
    }

    /// The levels of `transforms`, when every one is point or area; nil otherwise.
    static func levels(of transforms: [any Transform]) -> [Level]? {
        var levels = [Level(area: nil, points: [])]
        for (offset, stage) in transforms.enumerated() {
            switch stage.stageClass {
            case .point:
                let last = levels.removeLast()
                levels.append(Level(area: last.area, points: last.points + [(offset + 1, stage)]))
            case let .area(radius) where radius >= 0:
                levels.append(Level(area: (offset + 1, stage, radius), points: []))
            default: return nil
            }
        }
        return levels
    }

    /// Rows the level-0 ring must hold at least for the level after it: its window around a
    /// strip, the rows made past it to the next whole decode strip, and room for the decoder to
    /// go on meanwhile.
    static func decodeRingNeeds(_ levels: [Level], decodeStrip: Int) -> Int {
        guard levels.count > 1, let area = levels[1].area else { return 0 }
        return areaStripRows(radius: area.radius) + 2 * area.radius + 2 * decodeStrip
    }

    init(levels: [Level], size: Size, rowStride: Int, decodeRing: UnsafeMutablePointer<UInt8>, decodeRingRows: Int, decodeStrip: Int,
         makeDecoded: @escaping (Int) throws -> Int, releaseDecoded: @escaping (Int) -> Void,
         located: @escaping (Int, () throws -> Image) throws -> Image) {
        self.levels = levels
        self.size = size
        self.rowStride = rowStride
        self.makeDecoded = makeDecoded
        self.releaseDecoded = releaseDecoded
        self.located = located
        rings = [Ring(pixels: decodeRing, rows: decodeRingRows, strip: decodeStrip)]
        windows = [nil]
        for (level, next) in zip(levels.dropFirst(), levels.dropFirst(2).map(Optional.some) + [nil]) {
            let radius = level.area!.radius, strip = Self.areaStripRows(radius: radius)
            // The next level reads a window at once, made up to a strip past it, while rows
            // from the window's top stay; the encoder asks only once it has written every row
            // made, so the last level needs a strip. Whole strips, at most the picture.
            let needed = next?.area.map { Self.areaStripRows(radius: $0.radius) + 2 * $0.radius + 2 * strip } ?? strip
            let rows = min(size.height, (needed + strip - 1) / strip * strip)
            rings.append(Ring(pixels: .allocate(capacity: rows * rowStride), rows: rows < size.height ? rows : 0, strip: strip))
            windows.append(.allocate(capacity: min(size.height, strip + 2 * radius) * rowStride))
        }
    }

    deinit {
        for ring in rings.dropFirst() { ring.pixels.deallocate() }
        for window in windows { window?.deallocate() }
    }

    /// Where row `y` of `level`'s ring is.
    private func slot(_ level: Int, _ y: Int) -> UnsafeMutablePointer<UInt8> {
        let ring = rings[level]
        return ring.pixels + (ring.rows > 0 ? y % ring.rows : y) * rowStride
    }

    /// The encoder's side: the last level's pixels, how many rows are in its ring (0: all), the
    /// picture they make and the bytes from one row to the next.
    var output: (pixels: UnsafeMutablePointer<UInt8>, ringRows: Int, size: Size, rowStride: Int) {
        (rings[rings.count - 1].pixels, rings[rings.count - 1].rows, size, rowStride)
    }

    /// Makes the last level's rows up to `count` (the encoder's `needed`) and says how many are
    /// made: fewer only when the decode failed. The encoder has written every row before
    /// `count - 1`, whose slots may now be rewritten.
    func rows(upTo count: Int) throws -> Int {
        let last = levels.count - 1
        if last == 0 { releaseDecoded(count - 1) }
        return try make(level: last, upTo: count)
    }

    private func make(level: Int, upTo wanted: Int) throws -> Int {
        guard level > 0 else { return try makeDecoded(wanted) }
        let height = size.height, target = min(height, wanted)
        let radius = levels[level].area!.radius
        while rings[level].made < target {
            let first = rings[level].made, end = min(height, first + rings[level].strip)
            let low = max(0, first - radius), high = min(height, end + radius)
            guard try make(level: level - 1, upTo: high) >= high else { return rings[level].made } // the decode failed
            // The window, copied out of the level before (its ring may wrap there).
            let window = windows[level]!
            for y in low..<high { (window + (y - low) * rowStride).update(from: slot(level - 1, y), count: size.width * 3) }
            let area = levels[level].area!
            let made = try located(area.index) {
                let view = try Image.viewing(rows: window, size: Size(size.width, high - low), rowStride: rowStride)
                let result = try area.stage.apply(toWindow: view, rows: (first - low)..<(end - low),
                                                  at: StripPosition(top: low, pictureSize: size))
                guard result.size == Size(size.width, end - first), !result.hasAlpha else {
                    throw Self.brokenPromise(result, of: Size(size.width, end - first), "on the rows around each row")
                }
                return result
            }
            // A stopped stage leaves its rows unmade: they never reach the ring.
            try Cancellation.checkCurrent()
            for y in first..<end { slot(level, y).update(from: made.rowStart(y - first), count: size.width * 3) }
            try Self.applyPoints(levels[level].points, toRows: slot(level, first), size: Size(size.width, end - first), rowStride: rowStride,
                                 at: StripPosition(top: first, pictureSize: size), located: located)
            rings[level].made = end
            // The next strip's window starts `radius` above it: the rows before are done with.
            if level == 1 { releaseDecoded(max(0, end - radius)) }
        }
        return rings[level].made
    }

    /// `stages` (point stages) on the `size` rows at `first`, in place (a strip never wraps),
    /// which lie at `position` in the picture; `located` gives a stage's failure its name and place.
    static func applyPoints(_ stages: [(index: Int, stage: any Transform)], toRows first: UnsafeMutablePointer<UInt8>, size: Size,
                            rowStride: Int, at position: StripPosition, startingFrom start: Image? = nil,
                            located: (Int, () throws -> Image) throws -> Image) throws {
        let view = try Image.viewing(rows: first, size: size, rowStride: rowStride)
        var current = start ?? view
        for (index, stage) in stages {
            current = try located(index) {
                let result = try stage.apply(to: current, at: position)
                guard result.size == size, !result.hasAlpha else { throw brokenPromise(result, of: size, "row by row") }
                return result
            }
        }
        try Cancellation.checkCurrent()
        guard current !== view else { return }
        for y in 0..<size.height { (first + y * rowStride).update(from: current.rowStart(y), count: size.width * 3) }
    }

    /// A stage that made other rows than its class promised.
    static func brokenPromise(_ result: Image, of size: Size, _ how: String) -> StageError {
        StageError("made \(result.size)\(result.hasAlpha ? " RGBA" : "") of \(size) RGB rows, though it says it works \(how) (a bug in the stage)")
    }
}
