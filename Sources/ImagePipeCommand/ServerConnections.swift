import CSoup
import Glibc

/// A libsoup server's open connections (`imagepipe edit`'s and `imagepipe serve`'s), each with a
/// deadline: a connection must deliver a whole request within the timeout of opening (or of its
/// previous response), and take its response within the timeout too, else it is shut down;
/// while the server itself works on a request (`working`), it has no deadline. libsoup 3's SoupServer has neither an
/// idle timeout nor a connection limit, so both are kept here, from its signals: a connection
/// is known by its GSocket from the first "request-started" (emitted as it is accepted) until
/// the socket is finalized (its descriptor closed), which a weak reference reports.
///
/// libsoup before 3.3 also leaks every kept-alive connection that ends between two requests
/// (its commit d20c6601, "server: do not leak idle connections closed by the client"): the
/// message that waits for the next request gets its completion callback only with the
/// request's first bytes, so when the client closes first, or the idle timeout shuts the
/// socket, its end disconnects nothing, and the descriptor and the connection object stay for
/// the life of the process: a client making a connection a request ran the server out of
/// descriptors. So, for those versions, each connection object is noted as libsoup starts a
/// message on it (an emission hook on its "request-started", the one public way to it), and
/// a connection whose peer has gone, or that was shut, between a response and the next
/// request is handed back: its "disconnected" signal has the server drop and free it.
/// And from 3.1.2 to 3.3 its listener keeps a reference to every socket it accepts (its commit
/// b545d5f0, "soup-listener: Plug a leak"): no socket was ever freed (nor its entry here), so
/// that reference is dropped as the connection is first seen.
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
        /// libsoup's connection object, when it is to be handed back (libsoup before 3.3).
        var owner: UnsafeMutableRawPointer?
        /// Between a response and the next request's first bytes.
        var afterResponse = false
        /// Seen ended (the peer gone, or shut) after a response by a sweep: the next sweep hands
        /// it back, once libsoup has surely read that end.
        var endSeen = false
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
    /// Called once the server listens: libsoup's connection type exists from then on.
    func watch(_ server: UnsafeMutablePointer<SoupServer>) {
        Self.noteConnectionObjects()
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
        let owner = Self.connectionObjects.removeValue(forKey: key)
        if open[key] != nil {
            // The next request's first bytes (libsoup 3.2 says so only then).
            open[key]?.afterResponse = false
            open[key]?.endSeen = false
            return
        }
        // The connection object is kept only where its socket is freed with it (the socket's
        // weak reference then ends the entry before the object could dangle).
        let freedTogether = Self.dropListenersReference(socket)
        accepted += 1
        open[key] = Connection(number: accepted, deadline: deadline(), owner: freedTogether ? owner : nil)
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
        update(socket) {
            $0.waiting = true
            $0.afterResponse = true
        }
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
        var ended: [UnsafeMutableRawPointer] = []
        for (key, connection) in open {
            if connection.afterResponse, let owner = connection.owner, connection.closing || Self.peerHasClosed(key) {
                if connection.endSeen {
                    open[key]?.owner = nil
                    ended.append(owner)
                } else {
                    open[key]?.endSeen = true
                }
            } else if !connection.closing, connection.deadline <= now {
                shut(key)
            }
        }
        // After the walk: freeing a connection finalizes its socket, whose weak reference edits `open`.
        ended.forEach(Self.handBack)
    }

    /// Shuts the socket down both ways: libsoup's next read or write on it fails, and libsoup
    /// closes it as it does any connection the client closed.
    private func shut(_ key: UnsafeMutableRawPointer) {
        open[key]?.closing = true
        g_socket_shutdown(key.assumingMemoryBound(to: GSocket.self), 1, 1, nil)
    }

    /// The libsoup the process runs with (the workarounds below depend on it).
    private static let libsoup = (major: soup_get_major_version(), minor: soup_get_minor_version(), micro: soup_get_micro_version())
    /// libsoup's connection objects by socket, from the emission hook until `started` takes them.
    private static var connectionObjects: [UnsafeMutableRawPointer: UnsafeMutableRawPointer] = [:]
    /// libsoup's connection type, once the hook is in place.
    private static var connectionType: GType = 0

    /// Installs the emission hook that notes connection objects, once a process, for the
    /// libsoup versions that leak (see above).
    private static func noteConnectionObjects() {
        guard connectionType == 0, libsoup.major == 3, libsoup.minor < 3 else { return }
        let type = g_type_from_name("SoupServerConnection")
        // Its signals exist once its class does (before the first connection, only the type).
        guard type != 0, g_type_class_ref(type) != nil else { return }
        let signal = g_signal_lookup("request-started", type)
        guard signal != 0 else { return }
        connectionType = type
        g_signal_add_emission_hook(signal, 0, { _, count, values, _ in
            guard count >= 2, let values, let connection = g_value_get_object(values),
                  let message = g_value_get_object(values + 1),
                  let socket = soup_server_message_get_socket(OpaquePointer(message)) else { return 1 }
            MainActor.assumeIsolated { ServerConnections.connectionObjects[UnsafeMutableRawPointer(socket)] = connection }
            return 1
        }, nil, nil)
    }

    /// Drops the reference libsoup 3.1.2 to 3.3's listener keeps to the socket it has just
    /// accepted: known by the count, two (the listener's and the connection's) as the first
    /// request starts, where a libsoup without the leak has one. Whether it was dropped.
    private static func dropListenersReference(_ socket: UnsafeMutablePointer<GSocket>) -> Bool {
        let object = UnsafeMutableRawPointer(socket).assumingMemoryBound(to: GObject.self)
        guard libsoup.major == 3, (libsoup.minor, libsoup.micro) >= (1, 2), libsoup.minor < 4, object.pointee.ref_count == 2 else { return false }
        g_object_unref(object)
        return true
    }

    /// Whether the client has closed its end: a read that would not wait finds the end of the
    /// stream (nothing is taken: the bytes of a next request stay for libsoup).
    private static func peerHasClosed(_ key: UnsafeMutableRawPointer) -> Bool {
        var byte: UInt8 = 0
        return recv(g_socket_get_fd(key.assumingMemoryBound(to: GSocket.self)), &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT)) == 0
    }

    /// Has the server drop the connection object `owner`, as libsoup's own disconnect would
    /// have: its "disconnected" handler takes it off the server's list and releases it, and the
    /// last reference gone, the object closes its stream.
    private static func handBack(_ owner: UnsafeMutableRawPointer) {
        var instance = GValue()
        g_value_init(&instance, connectionType)
        g_value_set_object(&instance, owner)
        g_signal_emitv(&instance, g_signal_lookup("disconnected", connectionType), 0, nil)
        g_value_unset(&instance)
    }
}
