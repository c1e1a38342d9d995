/// The rows of a picture being decoded on one thread, handed to a reader on another as they come
/// (the streamed run: decode on one core, stages and encoder on the other). Any decoder that
/// makes rows in order can feed it (`RowSource`): libjpeg through its watcher, libtiff strip by
/// strip.
///
/// Once the decoder knows the picture's size and metadata it waits for the reader's word
/// (`decide(ringRows:)`): a ring of rows (row y in slot y % ring, rewritten once the reader has let go of
/// row y - ring, so memory does not grow with the picture), or the whole picture (0: the reader
/// declined, and the ordinary run takes the decode). The decoder's buffer belongs to the decoder:
/// on a failure it frees it, so `failing` waits until the reader has let go (`stopReading`), and
/// a reader may only begin while the decode has not failed (`beginReading`). All of it is decided
/// under the one lock of `PushedRows`, which counts the rows made and let go of.
final class RowHandoff: PushedRows, @unchecked Sendable {
    /// What the decoder says of the picture, before any pixel.
    struct Start {
        let size: Size
        let rowStride: Int
        let channels: Int
        let metadata: ImageMetadata
        /// Rows the decoder writes before it tells of them (a strip or a row of tiles; libjpeg's
        /// and libspng's rows are told 16 at a time): the ring holds them besides what the reader keeps.
        var bandRows = 16

        /// The stride of a row `width` pixels wide (RGB, or RGBA with 4 `channels`) in the ring:
        /// gdk-pixbuf's, whole 4-byte words.
        static func rowStride(width: Int, channels: Int = 3) -> Int { (width * channels + 3) / 4 * 4 }
    }

    private var start: Start?
    /// The reader has given its word (`ringRows`: 0 for the whole picture).
    private var decided = false
    private var pixels: UnsafeMutablePointer<UInt8>?
    private var failed = false
    private var reading = false
    /// The reader wants the whole picture as the ordinary run makes it, not rows.
    private var declinedRows = false
    /// What the decoder needs to build `Start.metadata`.
    let applyOrientation: Bool

    init(applyOrientation: Bool) {
        self.applyOrientation = applyOrientation
        super.init(ringRows: 0)
    }

    private func locked<T>(_ body: () -> T) -> T { monitor.locked(body) }
    private func wait() { monitor.wait() }
    private func wake() { monitor.wake() }

    // MARK: The reader's side

    /// Blocks until the decoder knows the picture; nil when the decode ended before it did.
    func waitForStart() -> Start? {
        locked {
            while start == nil && !finished { wait() }
            return start
        }
    }

    /// Gives the decoder the reader's word (after `waitForStart`): a ring of `ringRows` rows, or
    /// 0 for the whole picture.
    func decide(ringRows rows: Int) {
        locked {
            ringRows = rows
            decided = true
            wake()
        }
    }

    /// Tells the decoder (after `waitForStart`) to make the whole picture for the ordinary run.
    func decline() {
        locked {
            declinedRows = true
            decided = true
            wake()
        }
    }

    /// The decode's buffer, once it exists; nil when the decode ended first.
    func waitForPixels() -> UnsafeMutablePointer<UInt8>? {
        locked {
            while pixels == nil && !finished { wait() }
            return failed ? nil : pixels
        }
    }

    /// Takes the rows for reading; false when the decode has already failed (the buffer may be gone).
    func beginReading() -> Bool {
        locked {
            guard !failed else { return false }
            reading = true
            return true
        }
    }

    override var readableRows: Int { failed ? 0 : super.readableRows }

    /// The reader is done with the buffer, and reads no more rows.
    func stopReading() {
        locked {
            reading = false
            stopped = true
            wake()
        }
    }

    // MARK: The decoder's side

    /// Why a decode into a ring ended early: its reader stopped (a stage or the encoder failed,
    /// and says why itself).
    static let readerStopped = "the reader of the rows stopped"

    /// Rows of the ring the decode was told to use; 0 for the whole picture.
    var ring: Int { locked { ringRows } }

    /// Whether the reader declined the rows: the decoder's result is the picture.
    var declined: Bool { locked { declinedRows } }

    /// Says what the picture is, and waits for the reader's word: the rows of the ring to use
    /// (0: the whole picture).
    func started(_ picture: Start) -> Int {
        locked {
            start = picture
            wake()
            while !decided && !stopped { wait() }
            return ringRows
        }
    }

    /// The buffer the rows go to (row y in slot y % ring), before the first row.
    func ready(_ buffer: UnsafeMutablePointer<UInt8>) {
        locked {
            pixels = buffer
            wake()
        }
    }

    /// Waits until `row`'s slot may be written (the reader has let go of the row a ring before
    /// it; at once when every row has a slot of its own); false when the reader is gone.
    func room(for row: Int) -> Bool { waitForRoom(upTo: row + 1) }

    /// The decode failed after its buffer was handed over: no rows will come, and this returns
    /// only once the reader has let go of the buffer, which the decoder then frees.
    func failing() {
        locked {
            failed = true
            finished = true
            wake()
            while reading { wait() }
        }
    }
}
