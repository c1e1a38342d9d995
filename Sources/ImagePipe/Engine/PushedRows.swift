/// Between a thread that makes rows into a ring and one that reads them: the pusher waits for
/// room (rows the reader has let go of), the reader for rows. Either side stopping wakes the
/// other. A streamed run's chain pushes the rows at a tee or a branch to the side output's own
/// chain (`SideOutput`), and makes its last level's rows for the encoder (`WriteBehind`); a
/// decoder pushes the picture's rows to the stages (`RowHandoff`, which adds what a decode has
/// to say before its first row).
class PushedRows: @unchecked Sendable {
    /// Guards every field here and a subclass's own.
    let monitor = Monitor()
    /// Rows of the ring; 0 when each row has a slot of its own.
    var ringRows: Int
    private var made = 0
    private var released = 0
    /// Every row that will come has come (or the pushing failed).
    var finished = false
    /// The reader is gone: the pusher stops.
    var stopped = false
    /// What each side waits for, while it waits (0: it does not): the reader a count of rows
    /// made, the pusher a count let go of. A change wakes a side only once it has what it waits
    /// for; woken at every row, a side waiting for a strip went back to sleep some 30 times over
    /// (a service made 350 thread switches a picture).
    private var readerNeeds = 0
    private var pusherNeeds = 0

    init(ringRows: Int) { self.ringRows = ringRows }

    /// Rows a waiting reader waits for beyond those it asked for: where the pusher is the slower
    /// side (a thumbnail's decode takes three times its resampling), a reader that waits for
    /// each strip switches threads both ways at every strip; past a few strips more, the switches
    /// grow rare and the reader still keeps up.
    static let readAhead = 64

    // MARK: The pusher's side

    /// Waits until the rows before `end` may be written; false once the reader is gone.
    func waitForRoom(upTo end: Int) -> Bool {
        monitor.locked {
            while ringRows > 0 && end - ringRows > released && !stopped {
                pusherNeeds = end - ringRows
                // A reader waiting for more rows than the ring lets this side make goes on with
                // what it asked for (`waitForRows`).
                if readerNeeds > 0 { monitor.wake() }
                monitor.wait()
            }
            pusherNeeds = 0
            return !stopped
        }
    }

    /// Every row before `rows` is there.
    func made(_ rows: Int) {
        monitor.locked {
            made = rows
            if readerNeeds > 0 && made >= readerNeeds { monitor.wake() }
        }
    }

    /// No more rows will come (all of them, or the pushing failed).
    func finish() {
        monitor.locked {
            finished = true
            monitor.wake()
        }
    }

    // MARK: The reader's side

    /// Waits until `count` rows are there (or no more will come) and says how many are. Once it
    /// must wait at all, the reader waits for `readAhead` rows more than it asks for, or until
    /// the pusher waits for room.
    func waitForRows(atLeast count: Int) -> Int {
        monitor.locked {
            while made < count && !finished {
                readerNeeds = count + Self.readAhead
                monitor.wait()
            }
            readerNeeds = 0
            return readableRows
        }
    }

    /// Under the lock: the rows the reader may read (`RowHandoff`: none once the decode failed).
    var readableRows: Int { made }

    /// The rows before `count` are no longer read: their slots may be rewritten. Says how many
    /// rows have been let go of in all.
    @discardableResult
    func release(rowsBefore count: Int) -> Int {
        monitor.locked {
            released = max(released, count)
            if pusherNeeds > 0 && released >= pusherNeeds { monitor.wake() }
            return released
        }
    }

    /// The reader is done, in success or failure.
    func stop() {
        monitor.locked {
            stopped = true
            monitor.wake()
        }
    }
}
