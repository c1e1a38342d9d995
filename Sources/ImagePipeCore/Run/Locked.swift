#if canImport(Glibc)
import Glibc
#endif

/// A value shared between threads behind a pthread mutex.
///
/// Not `Synchronization.Mutex`: on Linux that locks with raw futex calls, which
/// ThreadSanitizer cannot see, so `make sanitize` reports every use of it as a race.
package final class Locked<Value: Sendable>: @unchecked Sendable {
    private var value: Value
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)

    package init(_ value: Value) {
        self.value = value
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
