/// Between the strip chain, run on a thread of its own, and the encoder on the run's thread: the
/// chain makes the last level's rows ahead into its ring while the encoder writes the rows
/// before them (libvips' write-behind), so that stages and encoding take both cores. The chain
/// makes a row only once the encoder has let go of the row a ring before it; the encoder reads
/// a row only once the chain has made it (the ring's bookkeeping is `PushedRows`').
final class WriteBehind: @unchecked Sendable {
    private let ring: PushedRows
    /// Hears of the rows the encoder is done with (all before the count), outside the lock: the
    /// decoder's ring, when the chain's output is that ring.
    private let released: ((Int) -> Void)?

    /// `ringRows` 0: each row has a slot of its own (or the ring is the decoder's, whose room the
    /// decoder itself waits for).
    init(ringRows: Int, released: ((Int) -> Void)? = nil) {
        ring = PushedRows(ringRows: ringRows)
        self.released = released
    }

    // MARK: The chain's side

    /// Waits until the rows before `end` may be written; false once the encoder is gone.
    func waitForRoom(upTo end: Int) -> Bool { ring.waitForRoom(upTo: end) }

    /// Every row before `rows` is made.
    func made(_ rows: Int) { ring.made(rows) }

    /// No more rows will be made.
    func finish() { ring.finish() }

    // MARK: The encoder's side

    /// Says the encoder is done with every row before `needed - 1`, waits until `needed` rows are
    /// made (or no more will be) and says how many are: a `RowFeed`'s `rowsReady`.
    func rows(upTo needed: Int) -> Int {
        let letGo = ring.release(rowsBefore: needed - 1)
        released?(letGo)
        return ring.waitForRows(atLeast: needed)
    }

    /// The encoder is done, in success or failure: the chain stops, and a decoder waiting for room
    /// in its ring is let go (whatever it writes there is no longer read).
    func stop() {
        ring.stop()
        released?(Int.max / 2)
    }
}
