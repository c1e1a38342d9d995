#if canImport(Glibc)
import Glibc
#endif

/// Work on a POSIX thread of its own, whose result `join` waits for. Not Dispatch's pool: the
/// streamed run's reader blocks until its decoder makes rows, so the decoder must not queue
/// behind pool threads that are all busy (or blocked) with other pictures of the batch.
final class WorkerThread<Value: Sendable>: @unchecked Sendable {
    private var thread = pthread_t()
    private var running: Bool
    // Written by the thread before it ends; read after pthread_join, which orders the two.
    private var outcome: Result<Value, any Error>?

    init(_ body: @escaping @Sendable () throws -> Value) {
        running = false
        running = PosixThread.start(&thread) { self.outcome = Result { try body() } }
        if !running { outcome = Result { try body() } } // no thread to be had: the work runs here, before anyone waits for it
    }

    /// Work started on a thread of its own, or nil when no thread can be had (the caller then
    /// does the work another way: this one must not run where it is asked for).
    static func started(_ body: @escaping @Sendable () throws -> Value) -> WorkerThread? {
        let worker = WorkerThread(unstarted: body)
        return worker.running ? worker : nil
    }

    private init(unstarted body: @escaping @Sendable () throws -> Value) {
        running = false
        running = PosixThread.start(&thread) { self.outcome = Result { try body() } }
    }

    /// Waits for the work to end (once; later calls return at once) and gives its result.
    func join() throws -> Value {
        if running {
            pthread_join(thread, nil)
            running = false
        }
        return try outcome!.get()
    }
}

/// Starting a joinable thread, apart from `WorkerThread`: a C thread function cannot live in a
/// generic context.
private enum PosixThread {
    private final class Body {
        let run: () -> Void
        init(_ run: @escaping () -> Void) { self.run = run }
    }

    static func start(_ thread: inout pthread_t, _ run: @escaping () -> Void) -> Bool {
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setstacksize(&attributes, 8 << 20) // decoders recurse; a secondary thread's default may be smaller
        let body = Unmanaged.passRetained(Body(run)).toOpaque()
        guard pthread_create(&thread, &attributes, { raw in
            Unmanaged<Body>.fromOpaque(raw!).takeRetainedValue().run()
            return nil
        }, body) == 0 else {
            Unmanaged<Body>.fromOpaque(body).release()
            return false
        }
        return true
    }
}
