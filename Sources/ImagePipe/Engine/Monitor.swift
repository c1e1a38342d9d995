#if canImport(Glibc)
import Glibc
#endif

/// A pthread mutex with one condition: what two threads handing rows to each other share
/// (`RowHandoff`, `WriteBehind`). POSIX rather than `Synchronization`, so that ThreadSanitizer
/// sees it (as `Locked`).
final class Monitor: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let changed = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    init() {
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(changed, nil)
    }

    deinit {
        pthread_cond_destroy(changed)
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
        changed.deallocate()
    }

    /// `body` with the mutex held.
    func locked<T>(_ body: () -> T) -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return body()
    }

    /// Within `locked`: lets the mutex go until `wake` is called, then takes it again.
    func wait() { pthread_cond_wait(changed, mutex) }

    /// Within `locked`: wakes every thread waiting.
    func wake() { pthread_cond_broadcast(changed) }
}
