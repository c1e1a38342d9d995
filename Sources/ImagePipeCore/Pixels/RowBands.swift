import Dispatch

/// Runs work over a picture's rows in bands, one per core when the picture is large enough for
/// the threads to pay (`DispatchQueue.concurrentPerform` scales ~1.95× on 2 cores).
public enum RowBands {
    /// Below this many units of work (pixels × cost per pixel) one band is faster than waking
    /// threads.
    static let parallelThreshold = 1_000_000

    /// Calls `body` with disjoint ranges of rows that together cover `0..<rows`, from several
    /// threads at once when `rows × work per row` is large. `body` must only write to rows of
    /// its own range (the compiler cannot check this: `body` is not `@Sendable`).
    ///
    /// `bands` fixes how many ranges there are (at most one per row) whatever the size and the
    /// machine's cores: so that a test takes the banded path on a one-core machine too. Within a
    /// run that can be stopped (`StageContext.current.cancellation`), a band is handed over in smaller
    /// ranges, and the rest of it is passed over once the run is stopped.
    public static func run(rows: Int, workPerRow: Int, minimumRows: Int = 16, bands fixed: Int? = nil, _ body: (Range<Int>) -> Void) {
        guard rows > 0 else { return }
        let bands = fixed.map { min(max(1, $0), rows) }
            ?? (rows * workPerRow < parallelThreshold ? 1 : max(1, min(System.coreCount, rows / max(1, minimumRows))))
        // In a run that can be stopped, each band goes in pieces with a look at the cancellation
        // between them: a stopped run leaves its rows unmade, and the pipeline, which checks
        // after every stage, throws that picture away.
        let context = StageContext.current, cancellation = context.cancellation
        // A piece is several times what a band must hold at least (a filter's extra rows stay a
        // small share of it) and about 16 million units of work: some tens of milliseconds.
        let piece = cancellation == nil ? rows : max(4 * minimumRows, 16 * parallelThreshold / max(1, workPerRow))
        if bands == 1 {
            inPieces(0..<rows, piece: piece, cancellation: cancellation, body)
            return
        }
        // Not @Sendable, so callers may capture raw pointers and tables: the bands are disjoint
        // and all of them end before `run` returns, which is what makes that sound.
        nonisolated(unsafe) let body = body
        DispatchQueue.concurrentPerform(iterations: bands) { band in
            // Dispatch's threads do not inherit the task-local: a body's own checks see it too.
            context.bound {
                inPieces((band * rows / bands)..<((band + 1) * rows / bands), piece: piece, cancellation: cancellation, body)
            }
        }
    }

    /// Calls `body` with every one of `columns` (disjoint ranges of a picture's columns) and
    /// ranges of rows that together cover `0..<rows`. A picture cut into at least as many column
    /// strips as there are cores shares the strips out, each strip's rows in one go: a filter
    /// whose bands would each read rows past their ends (an area filter's 2r) then reads them
    /// once per strip and not once per band, so a short strip of a wide picture costs what its
    /// rows do. Fewer strips go through `run(rows:…)`, every strip in each band.
    public static func run(rows: Int, columns: [Range<Int>], workPerRow: Int, minimumRows: Int = 16,
                           _ body: (_ rows: Range<Int>, _ columns: Range<Int>) -> Void) {
        guard rows > 0, columns.count >= System.coreCount, columns.count > 1, rows * workPerRow >= parallelThreshold else {
            run(rows: rows, workPerRow: workPerRow, minimumRows: minimumRows) { band in
                let cancellation = StageContext.current.cancellation
                for strip in columns where cancellation?.isCancelled != true { body(band, strip) }
            }
            return
        }
        let context = StageContext.current, cancellation = context.cancellation
        let piece = cancellation == nil ? rows : max(4 * minimumRows, 16 * parallelThreshold / max(1, workPerRow))
        nonisolated(unsafe) let body = body
        DispatchQueue.concurrentPerform(iterations: columns.count) { strip in
            context.bound {
                inPieces(0..<rows, piece: piece, cancellation: cancellation) { body($0, columns[strip]) }
            }
        }
    }

    /// `body` over `band` in ranges of at most `piece` rows, until `cancellation` is set.
    private static func inPieces(_ band: Range<Int>, piece: Int, cancellation: Cancellation?, _ body: (Range<Int>) -> Void) {
        var start = band.lowerBound
        while start < band.upperBound, cancellation?.isCancelled != true {
            let end = min(band.upperBound, start + piece)
            body(start..<end)
            start = end
        }
    }
}
