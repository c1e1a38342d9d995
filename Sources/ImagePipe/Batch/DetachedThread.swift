#if canImport(Glibc)
import Glibc
#endif

/// Starts work on a POSIX thread of its own that nobody joins: a decode stuck inside a C loader
/// cannot be stopped from outside, so a run past its time limit is abandoned on its thread
/// while the batch goes on (Dispatch's pool would not replace a thread that stays busy).
package enum DetachedThread {
    private final class Work: Sendable {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }

    package static func start(_ body: @escaping @Sendable () -> Void) {
        let work = Unmanaged.passRetained(Work(body)).toOpaque()
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        pthread_attr_setstacksize(&attributes, 8 << 20) // decoders recurse; the default of a secondary thread may be smaller
        var thread = pthread_t()
        let started = pthread_create(&thread, &attributes, { raw in
            Unmanaged<Work>.fromOpaque(raw!).takeRetainedValue().body()
            return nil
        }, work)
        if started != 0 { Unmanaged<Work>.fromOpaque(work).takeRetainedValue().body() } // no thread to be had: run here
    }
}
