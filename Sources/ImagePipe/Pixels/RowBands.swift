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
    /// machine's cores: so that a test takes the banded path on a one-core machine too.
    public static func run(rows: Int, workPerRow: Int, minimumRows: Int = 16, bands fixed: Int? = nil, _ body: (Range<Int>) -> Void) {
        guard rows > 0 else { return }
        let bands = fixed.map { min(max(1, $0), rows) }
            ?? (rows * workPerRow < parallelThreshold ? 1 : max(1, min(System.coreCount, rows / max(1, minimumRows))))
        if bands == 1 {
            body(0..<rows)
            return
        }
        // Not @Sendable, so callers may capture raw pointers and tables: the bands are disjoint
        // and all of them end before `run` returns, which is what makes that sound.
        nonisolated(unsafe) let body = body
        DispatchQueue.concurrentPerform(iterations: bands) { band in
            body((band * rows / bands)..<((band + 1) * rows / bands))
        }
    }
}
