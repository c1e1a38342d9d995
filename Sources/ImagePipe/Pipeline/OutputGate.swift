/// Lets a run's outputs land until it is closed: a run abandoned for taking too long (the
/// command's `--timeout`) may still be working on another thread, and must never put a file in
/// place after its failure was reported. Closing waits for a rename in progress, so an output
/// either landed before the close or never lands.
public final class OutputGate: Sendable {
    private let isOpen = Locked(true)

    public init() {}

    /// Closes the gate; outputs not yet in place are dropped from now on.
    public func close() { isOpen.withLock { $0 = false } }

    /// Runs `body` (putting one output in place) if the gate is open, holding it open meanwhile;
    /// throws when it is closed.
    public func whileOpen<T>(path: String, _ body: () throws -> T) throws -> T {
        try isOpen.withLock { open in
            guard open else { throw ImageError(.timedOut, path: path, reason: "abandoned after the time limit (--timeout); not written") }
            return try body()
        }
    }
}
