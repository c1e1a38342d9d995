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
///
/// A connection that ends between a response and the next request is handed back as soon as
/// libsoup has read its end: a watch on its descriptor, at a lower priority than libsoup's own
/// read, sees the end one turn of the loop after libsoup did (`watchForEnd`); a sweep of the
/// timeout's clock is the backstop. Handing it back before libsoup has read the end would leave
/// libsoup's pending read without its connection.
///
/// `imagepipe serve` accepts its connections itself (`ServeListener`) and hands each to libsoup
/// (`admit`): it counts every descriptor from accept to close against the cap, and is never
/// left without a listener when descriptors run out. Its sockets are found from a message by a
/// tag on the remote address it gave libsoup (`socket(of:)`).
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
        /// Its socket belongs to libsoup's connection object alone, so the object may be kept
        /// (`owner`): accepted by the server itself, or by a listener that holds no reference.
        var keepsOwner = false
        /// The source watching for the client's end after a response (0: none).
        var endWatch: UInt32 = 0
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
            guard let message, let context, let socket = ServerConnections.socket(of: message) else { return }
            MainActor.assumeIsolated { Unmanaged<ServerConnections>.fromOpaque(context).takeUnretainedValue().started(socket) }
        }
        let read: MessageSignal = { _, message, context in
            guard let message, let context, let socket = ServerConnections.socket(of: message) else { return }
            MainActor.assumeIsolated { Unmanaged<ServerConnections>.fromOpaque(context).takeUnretainedValue().read(socket) }
        }
        let finished: MessageSignal = { _, message, context in
            guard let message, let context, let socket = ServerConnections.socket(of: message) else { return }
            MainActor.assumeIsolated { Unmanaged<ServerConnections>.fromOpaque(context).takeUnretainedValue().finished(socket) }
        }
        let context = Unmanaged.passRetained(self).toOpaque()
        for (name, callback) in [("request-started", started), ("request-read", read), ("request-finished", finished), ("request-aborted", finished)] {
            g_signal_connect_data(UnsafeMutableRawPointer(server), name, unsafeBitCast(callback, to: GCallback.self), context, nil, GConnectFlags(rawValue: 0))
        }
    }

    /// Connections whose descriptor is open, closing ones included.
    var count: Int { open.count }

    /// The tag on a remote address given to libsoup with a socket the server accepted itself.
    static let socketTag = "imagepipe-socket"

    /// The socket `message` came on: libsoup's own, or the one the server accepted, tagged on
    /// the remote address it gave libsoup with it (libsoup keeps no socket for such a stream).
    static func socket(of message: OpaquePointer) -> UnsafeMutablePointer<GSocket>? {
        if let socket = soup_server_message_get_socket(message) { return socket }
        guard let remote = soup_server_message_get_remote_address(message) else { return nil }
        return g_object_get_data(UnsafeMutableRawPointer(remote).assumingMemoryBound(to: GObject.self), socketTag)?
            .assumingMemoryBound(to: GSocket.self)
    }

    /// A connection the server has just accepted itself, before libsoup has it: counted from
    /// now until its socket is finalized (its descriptor closed). At the cap, counting those
    /// closing, the oldest connection waiting for a request is shut to make room; when none
    /// waits, the new one is refused (false: the caller closes it at once).
    func admit(_ socket: UnsafeMutablePointer<GSocket>) -> Bool {
        if open.count >= maxConnections {
            guard let victim = oldestWaiting() else { return false }
            shut(victim)
        }
        register(socket, owner: nil, keepsOwner: true)
        return true
    }

    /// Shuts up to `most` of the connections waiting for a request, the oldest first, to give
    /// their descriptors back (the process has run out); how many.
    func shed(_ most: Int) -> Int {
        var shed = 0
        while shed < most, let victim = oldestWaiting() {
            shut(victim)
            shed += 1
        }
        return shed
    }

    private func oldestWaiting() -> UnsafeMutableRawPointer? {
        open.filter { $0.value.waiting && !$0.value.closing }.min { $0.value.number < $1.value.number }?.key
    }

    private func register(_ socket: UnsafeMutablePointer<GSocket>, owner: UnsafeMutableRawPointer?, keepsOwner: Bool) {
        accepted += 1
        open[UnsafeMutableRawPointer(socket)] = Connection(number: accepted, deadline: deadline(), owner: owner, keepsOwner: keepsOwner)
        g_object_weak_ref(UnsafeMutableRawPointer(socket).assumingMemoryBound(to: GObject.self), { context, object in
            MainActor.assumeIsolated {
                let connections = Unmanaged<ServerConnections>.fromOpaque(context!).takeRetainedValue()
                if let object { connections.forget(UnsafeMutableRawPointer(object)) }
            }
        }, Unmanaged.passRetained(self).toOpaque())
    }

    /// The socket `key` is finalized: its descriptor is closed.
    private func forget(_ key: UnsafeMutableRawPointer) {
        if let watch = open[key]?.endWatch, watch != 0 { g_source_remove(watch) }
        open[key] = nil
    }

    /// A request started on `socket`; an unknown socket is a new connection from libsoup's
    /// listener. At the cap (closing connections counted) the oldest connection waiting for a
    /// request makes room, or the new one is closed when none waits.
    func started(_ socket: UnsafeMutablePointer<GSocket>) {
        let key = UnsafeMutableRawPointer(socket)
        let owner = Self.connectionObjects.removeValue(forKey: key)
        if var connection = open[key] {
            // The next request's first bytes (libsoup 3.2 says so only then), or the first
            // message of a connection the server accepted itself.
            connection.afterResponse = false
            connection.endSeen = false
            stopWatching(&connection)
            if connection.owner == nil, connection.keepsOwner, !connection.closing { connection.owner = owner }
            open[key] = connection
            return
        }
        // The connection object is kept only where its socket is freed with it (the socket's
        // weak reference then ends the entry before the object could dangle).
        let freedTogether = Self.dropListenersReference(socket)
        register(socket, owner: freedTogether ? owner : nil, keepsOwner: freedTogether)
        guard open.count > maxConnections else { return }
        shut(oldestWaiting() ?? key)
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
        watchForEnd(socket)
    }

    /// Where libsoup leaks a connection that ends before its next request, watches its
    /// descriptor for that end. The watch runs at a lower priority than libsoup's read of the
    /// next request, which GLib's loop dispatches first when both are ready: so when the watch
    /// sees the end, libsoup has read it already and dropped its pending read, and the
    /// connection can be handed back at once.
    private func watchForEnd(_ socket: UnsafeMutablePointer<GSocket>) {
        let key = UnsafeMutableRawPointer(socket)
        guard var connection = open[key], connection.owner != nil, connection.endWatch == 0, g_socket_is_closed(socket) == 0 else { return }
        let condition = GIOCondition(rawValue: G_IO_IN.rawValue | G_IO_HUP.rawValue | G_IO_ERR.rawValue)
        let context = Unmanaged.passRetained(EndWatch(connections: self, key: key)).toOpaque()
        connection.endWatch = g_unix_fd_add_full(G_PRIORITY_LOW, g_socket_get_fd(socket), condition, { _, _, context in
            let watch = Unmanaged<EndWatch>.fromOpaque(context!).takeUnretainedValue()
            return MainActor.assumeIsolated { watch.connections.endWatched(watch.key) ? 1 : 0 }
        }, context, { context in
            Unmanaged<EndWatch>.fromOpaque(context!).release()
        })
        open[key] = connection
    }

    /// The watch on `key` fired; whether it goes on watching.
    private func endWatched(_ key: UnsafeMutableRawPointer) -> Bool {
        guard var connection = open[key], connection.endWatch != 0 else { return false }
        var owner: UnsafeMutableRawPointer?
        // Closed by libsoup: its descriptor's number may already be another connection's.
        if g_socket_is_closed(key.assumingMemoryBound(to: GSocket.self)) == 0 {
            switch Self.peer(of: key) {
            case .quiet: return true
            // The next request: libsoup reads it, and its end if it comes, itself.
            case .sending: break
            case .ended:
                owner = connection.owner
                connection.owner = nil
            }
        }
        connection.endWatch = 0
        open[key] = connection
        // The source ends with this call (false); handing back may finalize the socket.
        if let owner { Self.handBack(owner) }
        return false
    }

    private func stopWatching(_ connection: inout Connection) {
        if connection.endWatch != 0 { g_source_remove(connection.endWatch) }
        connection.endWatch = 0
    }

    /// What a watch's context names: the connections and the socket watched.
    private final class EndWatch {
        let connections: ServerConnections
        let key: UnsafeMutableRawPointer
        init(connections: ServerConnections, key: UnsafeMutableRawPointer) {
            self.connections = connections
            self.key = key
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
            if connection.afterResponse, let owner = connection.owner, connection.closing || Self.peer(of: key) == .ended {
                if connection.endSeen {
                    open[key]?.owner = nil
                    if connection.endWatch != 0 { g_source_remove(connection.endWatch) }
                    open[key]?.endWatch = 0
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
                  let socket = ServerConnections.socket(of: OpaquePointer(message)) else { return 1 }
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

    private enum Peer { case quiet, sending, ended }

    /// Whether the client has closed its end (or reset it): a read that would not wait finds the
    /// end of the stream or an error; or is sending; or neither. Nothing is taken: the bytes of
    /// a next request stay for libsoup.
    private static func peer(of key: UnsafeMutableRawPointer) -> Peer {
        var byte: UInt8 = 0
        let count = recv(g_socket_get_fd(key.assumingMemoryBound(to: GSocket.self)), &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT))
        if count > 0 { return .sending }
        if count == 0 { return .ended }
        return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? .quiet : .ended
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
