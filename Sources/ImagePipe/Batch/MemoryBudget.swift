#if canImport(Glibc)
import Glibc
#endif

/// The bytes a batch may hold at once (`--max-memory`), shared by its `--jobs` threads. Each
/// picture reserves its estimated cost before it starts (`Plan.estimatedPeakBytes`) and gives it
/// back when its run has truly ended; one that does not fit beside the pictures in progress waits
/// for them, and one that could never fit is refused alone. So two pictures that each fit but not
/// together run one after the other instead of exhausting memory and losing the whole batch.
///
/// `imagepipe serve` also holds the responses it has made until their clients have taken them
/// (`hold`): a client that reads slowly, or not at all, keeps its response's bytes in memory
/// for as long as its connection lasts. Those bytes count against the same limit, so a picture
/// does not start beside responses that leave it no room; it is refused at once instead
/// (`reserveBesideResponses`), since the responses go at their clients' pace, not the server's.
package final class MemoryBudget: @unchecked Sendable {
    package let limit: Int
    private var inUse = 0
    private var running = 0
    /// Bytes of responses made and not yet taken by their clients.
    private var held = 0
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let freed = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    package init(limit: Int) {
        self.limit = limit
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(freed, nil)
    }

    deinit {
        pthread_cond_destroy(freed)
        pthread_mutex_destroy(mutex)
        freed.deallocate()
        mutex.deallocate()
    }

    /// Whether `bytes` could ever be reserved.
    package func fits(_ bytes: Int) -> Bool { bytes <= limit }

    /// Reserves `bytes` (which must fit the limit), waiting while the pictures in progress hold
    /// too much. `waiting` is called once, before the first wait, with the bytes then in use.
    package func reserve(_ bytes: Int, waiting: (Int) -> Void) {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        var told = false
        // A picture alone always runs, whatever the others' estimates: they fit the limit too.
        while running > 0 && inUse + held + bytes > limit {
            if !told {
                told = true
                let held = inUse
                pthread_mutex_unlock(mutex)
                waiting(held)
                pthread_mutex_lock(mutex)
                continue
            }
            pthread_cond_wait(freed, mutex)
        }
        inUse += bytes
        running += 1
    }

    /// Reserves `bytes` (which must fit the limit) as `reserve` does, waiting while pictures in
    /// progress hold too much, but not for the responses held: when they alone leave no room
    /// for `bytes`, nothing is reserved and the answer is false. A picture alone, with no
    /// response held, always runs.
    package func reserveBesideResponses(_ bytes: Int) -> Bool {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        while true {
            if held > 0 && held + bytes > limit { return false }
            if running == 0 || inUse + held + bytes <= limit { break }
            pthread_cond_wait(freed, mutex)
        }
        inUse += bytes
        running += 1
        return true
    }

    /// Counts `bytes` of a response made, until `letGo`: they are in memory whatever the limit.
    package func hold(_ bytes: Int) {
        pthread_mutex_lock(mutex)
        held += bytes
        pthread_mutex_unlock(mutex)
    }

    /// The response of `bytes` has been taken by its client (or its connection closed).
    package func letGo(_ bytes: Int) {
        pthread_mutex_lock(mutex)
        held -= bytes
        pthread_cond_broadcast(freed)
        pthread_mutex_unlock(mutex)
    }

    /// Bytes of responses held now.
    package var heldBytes: Int {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return held
    }

    /// Gives back what `reserve` took.
    package func release(_ bytes: Int) {
        pthread_mutex_lock(mutex)
        inUse -= bytes
        running -= 1
        pthread_cond_broadcast(freed)
        pthread_mutex_unlock(mutex)
    }

    /// The default budget: three quarters of the memory this process may use — the machine's,
    /// or its control group's limit when that is lower (a container, a Slurm job).
    package static var defaultLimit: Int {
        let pages = sysconf(Int32(_SC_PHYS_PAGES)), pageSize = sysconf(Int32(_SC_PAGESIZE))
        var physical = pages > 0 && pageSize > 0 ? pages * pageSize : 4 << 30
        for file in ["/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"] {
            if let bytes = firstNumber(in: file), bytes > 0 { physical = min(physical, bytes) }
        }
        return physical / 4 * 3
    }

    /// The number a control-group file holds; nil for `max` or no such file.
    private static func firstNumber(in path: String) -> Int? {
        guard let file = fopen(path, "r") else { return nil }
        defer { fclose(file) }
        var line = [CChar](repeating: 0, count: 64)
        guard fgets(&line, Int32(line.count), file) != nil else { return nil }
        return Int(line.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }.filter(\.isNumber))
    }

    /// `1.2G`, `300M`: sizes in messages, in binary units with `--max-memory`'s letters (a
    /// fraction such as 1.2G is for reading; `--max-memory` takes whole numbers).
    package static func describe(_ bytes: Int) -> String {
        let units: [(String, Int)] = [("G", 30), ("M", 20), ("K", 10)]
        for (unit, shift) in units where bytes >= 1 << shift {
            let value = Double(bytes) / Double(1 << shift)
            let text = value >= 100 || value == value.rounded() ? "\(Int(value.rounded()))" : "\((value * 10).rounded() / 10)"
            return text + unit
        }
        return "\(bytes) bytes"
    }
}
