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
/// under one lock.
final class RowHandoff: @unchecked Sendable {
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

    private let monitor = Monitor()
    private var start: Start?
    /// The reader's word: rows of the ring, 0 for the whole picture; nil until it is given.
    private var ringRows: Int?
    private var pixels: UnsafeMutablePointer<UInt8>?
    private var decodedRows = 0
    /// Rows the reader no longer needs: the decoder may write over their slots.
    private var releasedRows = 0
    /// The decode has returned, or failed: no more rows will come.
    private var over = false
    private var failed = false
    private var reading = false
    /// The reader is gone: a decoder waiting for room in the ring gives up.
    private var readerGone = false
    /// The reader wants the whole picture as the ordinary run makes it, not rows.
    private var declinedRows = false
    /// What each side waits for, while it waits (0: it does not): the reader a count of rows
    /// decoded, the decoder a count let go of. New rows, or rows let go of, wake a side only once
    /// it has what it waits for (as `PushedRows`).
    private var readerNeeds = 0
    private var decoderNeeds = 0
    /// What the decoder needs to build `Start.metadata`.
    let applyOrientation: Bool

    init(applyOrientation: Bool) {
        self.applyOrientation = applyOrientation
    }

    private func locked<T>(_ body: () -> T) -> T { monitor.locked(body) }
    private func wait() { monitor.wait() }
    private func wake() { monitor.wake() }

    // MARK: The reader's side

    /// Blocks until the decoder knows the picture; nil when the decode ended before it did.
    func waitForStart() -> Start? {
        locked {
            while start == nil && !over { wait() }
            return start
        }
    }

    /// Gives the decoder the reader's word (after `waitForStart`): a ring of `ringRows` rows, or
    /// 0 for the whole picture.
    func decide(ringRows rows: Int) {
        locked {
            ringRows = rows
            wake()
        }
    }

    /// Tells the decoder (after `waitForStart`) to make the whole picture for the ordinary run.
    func decline() {
        locked {
            declinedRows = true
            ringRows = 0
            wake()
        }
    }

    /// The decode's buffer, once it exists; nil when the decode ended first.
    func waitForPixels() -> UnsafeMutablePointer<UInt8>? {
        locked {
            while pixels == nil && !over { wait() }
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

    /// Rows a waiting reader waits for beyond those it asked for: where the decoder is the slower
    /// side (a thumbnail's decode takes three times its resampling), a reader that waits for
    /// each strip switches threads both ways at every strip; past a few strips more, the switches
    /// grow rare and the reader still keeps up.
    static let readAhead = 64

    /// Blocks until at least `count` rows are decoded (or the decode is over) and says how many
    /// are. Once it must wait at all, it waits for `readAhead` rows more, or until the decoder
    /// waits for room in the ring.
    func waitForRows(atLeast count: Int) -> Int {
        locked {
            while decodedRows < count && !over {
                readerNeeds = count + Self.readAhead
                wait()
            }
            readerNeeds = 0
            return failed ? 0 : decodedRows
        }
    }

    /// The reader is done with every row before `count`: their slots in the ring may be rewritten.
    func release(rowsBefore count: Int) {
        locked {
            guard count > releasedRows else { return }
            releasedRows = count
            if decoderNeeds > 0 && releasedRows >= decoderNeeds { wake() }
        }
    }

    /// The reader is done with the buffer, and reads no more rows.
    func stopReading() {
        locked {
            reading = false
            readerGone = true
            wake()
        }
    }

    // MARK: The decoder's side

    /// Why a decode into a ring ended early: its reader stopped (a stage or the encoder failed,
    /// and says why itself).
    static let readerStopped = "the reader of the rows stopped"

    /// Rows of the ring the decode was told to use; 0 for the whole picture.
    var ring: Int { locked { ringRows ?? 0 } }

    /// Whether the reader declined the rows: the decoder's result is the picture.
    var declined: Bool { locked { declinedRows } }

    /// Says what the picture is, and waits for the reader's word: the rows of the ring to use
    /// (0: the whole picture).
    func started(_ picture: Start) -> Int {
        locked {
            start = picture
            wake()
            while ringRows == nil && !readerGone { wait() }
            return ringRows ?? 0
        }
    }

    /// The buffer the rows go to (row y in slot y % ring), before the first row.
    func ready(_ buffer: UnsafeMutablePointer<UInt8>) {
        locked {
            pixels = buffer
            wake()
        }
    }

    /// Every row before `rows` is decoded.
    func decoded(rows: Int) {
        locked {
            decodedRows = rows
            if readerNeeds > 0 && decodedRows >= readerNeeds { wake() }
        }
    }

    /// Waits until `row`'s slot may be written (the reader has let go of the row a ring before
    /// it; at once when every row has a slot of its own); false when the reader is gone.
    func room(for row: Int) -> Bool {
        locked {
            let ring = ringRows ?? 0
            guard ring > 0 else { return !readerGone }
            while row - ring >= releasedRows && !readerGone {
                decoderNeeds = row - ring + 1
                // A reader waiting for more rows than the ring lets the decoder make goes on
                // with what it asked for (`waitForRows`).
                if readerNeeds > 0 { wake() }
                wait()
            }
            decoderNeeds = 0
            return row - ring < releasedRows
        }
    }

    /// The decode failed after its buffer was handed over: no rows will come, and this returns
    /// only once the reader has let go of the buffer, which the decoder then frees.
    func failing() {
        locked {
            failed = true
            over = true
            wake()
            while reading { wait() }
        }
    }

    /// The decoder is done, in success or failure: wakes a reader still waiting.
    func decoderReturned() {
        locked {
            over = true
            wake()
        }
    }
}
