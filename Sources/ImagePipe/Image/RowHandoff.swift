#if canImport(Glibc)
import Glibc
#endif
import CJPEGStrict

/// The rows of a JPEG being decoded on one thread, handed to a reader on another as they come
/// (the streamed run: decode on one core, stages and encoder on the other).
///
/// The decoder's buffer belongs to the decoder: on a failure it frees it, so `failing` waits
/// until the reader has let go (`stopReading`), and a reader may only begin while the decode has
/// not failed (`beginReading`). Both are decided under one lock.
final class RowHandoff: @unchecked Sendable {
    /// The decode's pixel buffer and what libjpeg said of the picture, once it exists.
    struct Start {
        let pixels: UnsafeMutablePointer<UInt8>
        let size: Size
        let rowStride: Int
        let channels: Int
        let metadata: ImageMetadata
    }

    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let changed = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var start: Start?
    private var decodedRows = 0
    /// The decode has returned, or failed: no more rows will come.
    private var over = false
    private var failed = false
    private var reading = false
    /// What the decoder needs to build `Start.metadata`.
    private let applyOrientation: Bool

    init(applyOrientation: Bool) {
        self.applyOrientation = applyOrientation
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(changed, nil)
    }

    deinit {
        pthread_cond_destroy(changed)
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
        changed.deallocate()
    }

    private func locked<T>(_ body: () -> T) -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return body()
    }

    private func wait() { pthread_cond_wait(changed, mutex) }
    private func wake() { pthread_cond_broadcast(changed) }

    // MARK: The reader's side

    /// Blocks until the buffer exists; nil when the decode ended before it did.
    func waitForStart() -> Start? {
        locked {
            while start == nil && !over { wait() }
            return start
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

    /// Blocks until at least `count` rows are decoded (or the decode is over) and says how many are.
    func waitForRows(atLeast count: Int) -> Int {
        locked {
            while decodedRows < count && !over { wait() }
            return failed ? 0 : decodedRows
        }
    }

    /// The reader is done with the buffer.
    func stopReading() {
        locked {
            reading = false
            wake()
        }
    }

    // MARK: The decoder's side (through `watcher`)

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

    /// A libjpeg watcher reporting to this handoff, valid while the handoff lives.
    var watcher: imagepipe_jpeg_watcher {
        imagepipe_jpeg_watcher(
            context: Unmanaged.passUnretained(self).toOpaque(),
            started: { context, result in
                let handoff = Unmanaged<RowHandoff>.fromOpaque(context!).takeUnretainedValue()
                let result = result!.pointee
                let metadata = StrictJPEG.metadata(of: result, applyOrientation: handoff.applyOrientation)
                handoff.locked {
                    handoff.start = Start(pixels: result.pixels, size: Size(Int(result.width), Int(result.height)),
                                          rowStride: Int(result.rowstride), channels: Int(result.channels), metadata: metadata)
                    handoff.wake()
                }
            },
            decoded: { context, rows in
                let handoff = Unmanaged<RowHandoff>.fromOpaque(context!).takeUnretainedValue()
                handoff.locked {
                    handoff.decodedRows = Int(rows)
                    handoff.wake()
                }
            },
            failed: { context in Unmanaged<RowHandoff>.fromOpaque(context!).takeUnretainedValue().failing() })
    }
}
