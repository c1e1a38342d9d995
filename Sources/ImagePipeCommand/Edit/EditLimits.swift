#if canImport(Glibc)
import Glibc
#endif

/// What the editor's server allows a client: the page's requests are a few hundred bytes, a
/// browser opens at most six connections to one host, and a gesture's request comes within
/// moments; anything past these is refused before it costs memory or a descriptor for long.
struct EditLimits: Sendable {
    /// The largest request body read; a larger Content-Length, or a chunked body growing past
    /// it, is answered 413 and its connection closed before the body is read on.
    var maxBody = 64 * 1024
    /// How long a connection may take to deliver a whole request (from its opening, or from the
    /// previous response), and to take a response; then it is closed.
    var timeoutMilliseconds: UInt32 = 15_000
    /// Open connections at most; past it, the oldest one waiting for a request is closed.
    var maxConnections = 32
    /// The deepest nesting of arrays and objects a request's JSON may have (the page's is 2).
    var maxDepth = 16

    /// The defaults, with the timeout from IMAGEPIPE_EDIT_TIMEOUT_MS when it holds 100…600000
    /// (a hidden setting, so tests need not wait the full timeout).
    static func fromEnvironment() -> EditLimits {
        var limits = EditLimits()
        if let text = getenv("IMAGEPIPE_EDIT_TIMEOUT_MS").map({ String(cString: $0) }), let value = UInt32(text), (100...600_000).contains(value) {
            limits.timeoutMilliseconds = value
        }
        return limits
    }
}
