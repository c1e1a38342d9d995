#if canImport(Glibc)
import Glibc
#endif

/// Lets a run's outputs land until it is closed: a run abandoned for taking too long (the
/// command's `--timeout`) may still be working on another thread, and must never put a file in
/// place after its failure was reported. Closing waits for a rename in progress, so an output
/// either landed before the close or never lands.
///
/// It also remembers the files it let land, so that a picture that fails after a `tee` wrote
/// (a later stage, the save, the time limit) takes that output back: a picture's outputs are all
/// there or none is.
package final class OutputGate: Sendable {
    private let isOpen = Locked(true)
    private let landed = Locked<[String]>([])

    package init() {}

    /// Closes the gate; outputs not yet in place are dropped from now on.
    package func close() { isOpen.withLock { $0 = false } }

    /// Notes a file put in place through the gate (by rename: a device written through is not
    /// a file to take back).
    func recordLanded(_ path: String) { landed.withLock { $0.append(path) } }

    /// Closes the gate and removes the files that landed through it.
    package func withdraw() {
        close()
        for path in landed.withLock({ paths in defer { paths.removeAll() }; return paths }) { unlink(path) }
    }

    /// Runs `body` (putting one output in place) if the gate is open, holding it open meanwhile;
    /// throws when it is closed.
    package func whileOpen<T>(path: String, _ body: () throws -> T) throws -> T {
        try isOpen.withLock { open in
            guard open else { throw ImageError(.timedOut, path: path, reason: "abandoned after the time limit; not written") }
            return try body()
        }
    }
}
