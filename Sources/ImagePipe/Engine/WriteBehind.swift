/// Between the strip chain, run on a thread of its own, and the encoder on the run's thread: the
/// chain makes the last level's rows ahead into its ring while the encoder writes the rows
/// before them (libvips' write-behind), so that stages and encoding take both cores. The chain
/// makes a row only once the encoder has let go of the row a ring before it; the encoder reads
/// a row only once the chain has made it. Either side stopping wakes the other.
final class WriteBehind: @unchecked Sendable {
    private let monitor = Monitor()
    /// Rows of the ring the chain writes into; 0 when each row has a slot of its own (or when the
    /// ring is the decoder's, whose room the decoder itself waits for).
    private let ringRows: Int
    /// Hears of the rows the encoder is done with (all before the count), outside the lock: the
    /// decoder's ring, when the chain's output is that ring.
    private let released: ((Int) -> Void)?
    private var made = 0
    private var done = 0
    /// The chain has made every row it will make.
    private var finished = false
    /// The encoder is gone: the chain stops at its next strip.
    private var stopped = false

    init(ringRows: Int, released: ((Int) -> Void)? = nil) {
        self.ringRows = ringRows
        self.released = released
    }

    private func locked<T>(_ body: () -> T) -> T { monitor.locked(body) }

    // MARK: The chain's side

    /// Waits until the rows before `end` may be written (the encoder has let go of the rows a
    /// ring before them); false once the encoder is gone.
    func waitForRoom(upTo end: Int) -> Bool {
        locked {
            while ringRows > 0 && end - ringRows > done && !stopped { monitor.wait() }
            return !stopped
        }
    }

    /// Every row before `rows` is made.
    func made(_ rows: Int) {
        locked {
            made = rows
            monitor.wake()
        }
    }

    /// No more rows will be made.
    func finish() {
        locked {
            finished = true
            monitor.wake()
        }
    }

    // MARK: The encoder's side

    /// Says the encoder is done with every row before `needed - 1`, waits until `needed` rows are
    /// made (or no more will be) and says how many are: a `RowFeed`'s `rowsReady`.
    func rows(upTo needed: Int) -> Int {
        let count = locked {
            done = max(done, needed - 1)
            monitor.wake()
            return done
        }
        released?(count)
        return locked {
            while made < needed && !finished { monitor.wait() }
            return made
        }
    }

    /// The encoder is done, in success or failure: the chain stops, and a decoder waiting for room
    /// in its ring is let go (whatever it writes there is no longer read).
    func stop() {
        locked {
            stopped = true
            monitor.wake()
        }
        released?(Int.max / 2)
    }
}
