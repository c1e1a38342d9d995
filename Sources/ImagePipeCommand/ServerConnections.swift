import CSoup

/// A libsoup server's open connections (`imagepipe edit`'s and `imagepipe serve`'s), each with a
/// deadline: a connection must deliver a whole request within the timeout of opening (or of its
/// previous response), and take its response within the timeout too, else it is shut down;
/// while the server itself works on a request (`working`), it has no deadline. libsoup 3's SoupServer has neither an
/// idle timeout nor a connection limit, so both are kept here, from its signals: a connection
/// is known by its GSocket from the first "request-started" (emitted as it is accepted) until
/// the socket is finalized (its descriptor closed), which a weak reference reports.
@MainActor
final class ServerConnections {
    private struct Connection {
        /// Accept order: the oldest waiting connection is the one closed when the cap is reached.
        let number: Int
        /// Monotonic time (µs) by which it must have made its next step.
        var deadline: Int64
        /// Waiting for a request (closable to make room) rather than handling or answering one.
        var waiting = true
        /// Shut down, its descriptor not yet closed by libsoup.
        var closing = false
    }

    /// How long a connection may take to deliver a request, or to take its response.
    let timeoutMilliseconds: UInt32
    /// Open connections at most; past it, the oldest one waiting for a request is closed.
    let maxConnections: Int
    private var open: [UnsafeMutableRawPointer: Connection] = [:]
    private var accepted = 0

    init(timeoutMilliseconds: UInt32, maxConnections: Int) {
        self.timeoutMilliseconds = timeoutMilliseconds
        self.maxConnections = maxConnections
        // A quarter of the timeout between sweeps closes a late connection within 1.25 timeouts.
        let interval = max(25, timeoutMilliseconds / 4)
        // The sweep runs for the life of the process; it keeps its own reference.
        g_timeout_add(interval, { context in
            MainActor.assumeIsolated { Unmanaged<ServerConnections>.fromOpaque(context!).takeUnretainedValue().sweep() }
            return 1
        }, Unmanaged.passRetained(self).toOpaque())
    }

    /// Follows `server`'s connections from its signals: accepted, request read, response sent
    /// (or the request aborted). The connections live as long as the process, as the servers do.
    func watch(_ server: UnsafeMutablePointer<SoupServer>) {
        typealias MessageSignal = @convention(c) (OpaquePointer?, OpaquePointer?, gpointer?) -> Void
        let started: MessageSignal = { _, message, context in
            guard let message, let context, let socket = soup_server_message_get_socket(message) else { return }
            MainActor.assumeIsolated { Unmanaged<ServerConnections>.fromOpaque(context).takeUnretainedValue().started(socket) }
        }
        let read: MessageSignal = { _, message, context in
            guard let message, let context, let socket = soup_server_message_get_socket(message) else { return }
            MainActor.assumeIsolated { Unmanaged<ServerConnections>.fromOpaque(context).takeUnretainedValue().read(socket) }
        }
        let finished: MessageSignal = { _, message, context in
            guard let message, let context, let socket = soup_server_message_get_socket(message) else { return }
            MainActor.assumeIsolated { Unmanaged<ServerConnections>.fromOpaque(context).takeUnretainedValue().finished(socket) }
        }
        let context = Unmanaged.passRetained(self).toOpaque()
        for (name, callback) in [("request-started", started), ("request-read", read), ("request-finished", finished), ("request-aborted", finished)] {
            g_signal_connect_data(UnsafeMutableRawPointer(server), name, unsafeBitCast(callback, to: GCallback.self), context, nil, GConnectFlags(rawValue: 0))
        }
    }

    /// Connections whose descriptor is open, closing ones included.
    var count: Int { open.count }

    /// A request started on `socket`; an unknown socket is a new connection. At the cap the oldest
    /// connection waiting for a request makes room, or the new one is closed when none waits.
    func started(_ socket: UnsafeMutablePointer<GSocket>) {
        let key = UnsafeMutableRawPointer(socket)
        if open[key] != nil { return }
        accepted += 1
        open[key] = Connection(number: accepted, deadline: deadline())
        g_object_weak_ref(UnsafeMutableRawPointer(socket).assumingMemoryBound(to: GObject.self), { context, object in
            MainActor.assumeIsolated {
                let connections = Unmanaged<ServerConnections>.fromOpaque(context!).takeRetainedValue()
                if let object { connections.open[UnsafeMutableRawPointer(object)] = nil }
            }
        }, Unmanaged.passRetained(self).toOpaque())
        let live = open.values.filter { !$0.closing }
        guard live.count > maxConnections else { return }
        let oldest = live.filter(\.waiting).min { $0.number < $1.number }
        let victim = oldest.flatMap { oldest in open.first { $0.value.number == oldest.number }?.key } ?? key
        shut(victim)
    }

    /// The request on `socket` is read: its response must be taken within the timeout.
    func read(_ socket: UnsafeMutablePointer<GSocket>) {
        update(socket) { $0.waiting = false }
    }

    /// The server works on the request on `socket` (a picture being made): no deadline until
    /// its response is ready (`read` again).
    func working(_ socket: UnsafeMutablePointer<GSocket>) {
        update(socket) { $0.waiting = false }
        open[UnsafeMutableRawPointer(socket)]?.deadline = .max
    }

    /// The response on `socket` is sent: a next request must come within the timeout.
    func finished(_ socket: UnsafeMutablePointer<GSocket>) {
        update(socket) { $0.waiting = true }
    }

    private func update(_ socket: UnsafeMutablePointer<GSocket>, _ change: (inout Connection) -> Void) {
        let key = UnsafeMutableRawPointer(socket)
        guard var connection = open[key], !connection.closing else { return }
        change(&connection)
        connection.deadline = deadline()
        open[key] = connection
    }

    private func deadline() -> Int64 { Int64(g_get_monotonic_time()) + Int64(timeoutMilliseconds) * 1000 }

    private func sweep() {
        let now = Int64(g_get_monotonic_time())
        for (key, connection) in open where !connection.closing && connection.deadline <= now { shut(key) }
    }

    /// Shuts the socket down both ways: libsoup's next read or write on it fails, and libsoup
    /// closes it as it does any connection the client closed.
    private func shut(_ key: UnsafeMutableRawPointer) {
        open[key]?.closing = true
        g_socket_shutdown(key.assumingMemoryBound(to: GSocket.self), 1, 1, nil)
    }
}
