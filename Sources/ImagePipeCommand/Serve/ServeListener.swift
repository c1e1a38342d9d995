import ImagePipe
import CSoup
#if canImport(Glibc)
import Glibc
#endif

/// `imagepipe serve`'s listening socket, accepted from by the server itself and each connection
/// handed to libsoup (`soup_server_accept_iostream`), rather than by libsoup's own listener.
///
/// libsoup's listener (3.2 to 3.6 alike) stops for good the first time accept() fails: its
/// watch returns G_SOURCE_REMOVE, and nothing arms it again. Out of descriptors (EMFILE), a
/// server then stays up and never answers again. Here a failed accept for want of descriptors
/// shuts the oldest connections waiting for a request (their descriptors come back as libsoup
/// closes them) and arms the watch again shortly after; every other failure (a connection reset
/// before it was taken) passes over that connection alone. Every accepted socket is counted
/// against `--max-connections` before libsoup sees it (`ServerConnections.admit`).
///
/// libsoup keeps a connection alive between requests only while the server has a listener of
/// its own, so it is given one on one end of a socket pair whose other end stays open and
/// silent: that listener never has anything to accept.
@MainActor
final class ServeListener {
    /// The address it listens on, as `http://HOST:PORT/`.
    let address: String
    private let socket: UnsafeMutablePointer<GSocket>
    private let server: UnsafeMutablePointer<SoupServer>
    private let connections: ServerConnections
    /// The accept watch, while armed.
    private var watch: UInt32 = 0
    /// Connections accepted at most per turn of the loop, so that a burst of them does not hold
    /// back the requests of those already open.
    private static let acceptsPerTurn = 16
    /// How many connections waiting for a request are shut when descriptors run out.
    private static let shedOnShortage = 16
    /// How long the watch rests after descriptors ran out (the shut connections close meanwhile).
    private static let restMilliseconds: UInt32 = 20

    init(server: UnsafeMutablePointer<SoupServer>, connections: ServerConnections, host: String, port: UInt32) throws {
        self.server = server
        self.connections = connections
        var error: UnsafeMutablePointer<GError>?
        guard let socketAddress = g_inet_socket_address_new_from_string(host, port) else {
            throw UsageError("--listen: '\(host)' is not an IP address")
        }
        defer { g_object_unref(socketAddress) }
        let family = g_socket_address_get_family(UnsafeMutableRawPointer(socketAddress).assumingMemoryBound(to: GSocketAddress.self))
        guard let socket = g_socket_new(family, G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_TCP, &error) else {
            throw UsageError("serve cannot listen: \(Self.take(error))")
        }
        self.socket = socket
        // A burst of connections waits in the kernel's queue rather than being refused.
        g_socket_set_listen_backlog(socket, 1024)
        guard g_socket_bind(socket, UnsafeMutableRawPointer(socketAddress).assumingMemoryBound(to: GSocketAddress.self), 1, &error) != 0,
              g_socket_listen(socket, &error) != 0 else {
            throw UsageError("serve cannot listen on \(host):\(port): \(Self.take(error))")
        }
        // Accepted sockets inherit it: small responses go out without waiting for an
        // acknowledgement (libsoup's listener sets it too).
        var one: Int32 = 1
        setsockopt(g_socket_get_fd(socket), Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        var bound = port
        if let local = g_socket_get_local_address(socket, nil) {
            bound = UInt32(g_inet_socket_address_get_port(UnsafeMutableRawPointer(local).assumingMemoryBound(to: GInetSocketAddress.self)))
            g_object_unref(local)
        }
        address = "http://" + (host.contains(":") ? "[\(host)]" : host) + ":\(bound)/"
        try Self.giveIdleListener(to: server)
    }

    /// The silent listener that keeps libsoup's keep-alive on (see above). Its pair's other end
    /// is left open for the life of the process.
    private static func giveIdleListener(to server: UnsafeMutablePointer<SoupServer>) throws {
        var ends: [Int32] = [-1, -1]
        var error: UnsafeMutablePointer<GError>?
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &ends) == 0,
              let idle = g_socket_new_from_fd(ends[0], &error) else {
            throw UsageError("serve cannot make its server: \(error.map { _ in take(error) } ?? String(cString: strerror(errno)))")
        }
        defer { g_object_unref(idle) }
        guard soup_server_listen_socket(server, idle, SoupServerListenOptions(rawValue: 0), &error) != 0 else {
            throw UsageError("serve cannot make its server: \(take(error))")
        }
    }

    private static func take(_ error: UnsafeMutablePointer<GError>?) -> String {
        defer { if let error { g_error_free(error) } }
        return error.map { String(cString: $0.pointee.message) } ?? "unknown error"
    }

    /// Arms the accept watch.
    func start() {
        guard watch == 0 else { return }
        watch = g_unix_fd_add_full(G_PRIORITY_DEFAULT, g_socket_get_fd(socket), G_IO_IN, { _, _, context in
            MainActor.assumeIsolated { Unmanaged<ServeListener>.fromOpaque(context!).takeUnretainedValue().acceptSome() ? 1 : 0 }
        }, Unmanaged.passUnretained(self).toOpaque(), nil)
    }

    /// Takes the connections waiting in the kernel's queue, a turn's worth; whether the watch
    /// stays armed.
    private func acceptSome() -> Bool {
        for _ in 0..<Self.acceptsPerTurn {
            // The listening descriptor is non-blocking (GSocket makes every one so).
            let descriptor = accept(g_socket_get_fd(socket), nil, nil)
            if descriptor < 0 {
                switch errno {
                case EAGAIN, EWOULDBLOCK: return true
                case EMFILE, ENFILE, ENOBUFS, ENOMEM:
                    runShort()
                    return false
                // The connection was reset or failed before it was taken: the next one may not be.
                default: continue
                }
            }
            // Not inherited by the processes that decode opt-in formats apart.
            _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
            hand(descriptor)
        }
        return true
    }

    /// Out of descriptors: the oldest connections waiting for a request are shut, and the watch
    /// rests a moment (the queue stays readable, and would be tried again at once) before it is
    /// armed again, whether or not any could be shut: pictures finishing free theirs too.
    private func runShort() {
        let shed = connections.shed(Self.shedOnShortage)
        Console.error("serve: out of file descriptors with \(connections.count) connection(s) open; closed \(shed) waiting for a request")
        watch = 0
        g_timeout_add_full(G_PRIORITY_DEFAULT, Self.restMilliseconds, { context in
            MainActor.assumeIsolated { Unmanaged<ServeListener>.fromOpaque(context!).takeUnretainedValue().start() }
            return 0
        }, Unmanaged.passUnretained(self).toOpaque(), nil)
    }

    /// Hands the accepted `descriptor` to libsoup, or closes it when the cap refuses it or it is
    /// already gone.
    private func hand(_ descriptor: Int32) {
        guard let accepted = g_socket_new_from_fd(descriptor, nil) else {
            close(descriptor)
            return
        }
        defer { g_object_unref(accepted) }
        guard let local = g_socket_get_local_address(accepted, nil) else {
            g_socket_close(accepted, nil)
            return
        }
        defer { g_object_unref(local) }
        guard let remote = g_socket_get_remote_address(accepted, nil) else {
            g_socket_close(accepted, nil)
            return
        }
        defer { g_object_unref(remote) }
        guard connections.admit(accepted) else {
            g_socket_close(accepted, nil)
            return
        }
        // The messages of this connection find their socket through its remote address.
        g_object_set_data(UnsafeMutableRawPointer(remote).assumingMemoryBound(to: GObject.self), ServerConnections.socketTag, accepted)
        guard let stream = g_socket_connection_factory_create_connection(accepted) else {
            g_socket_close(accepted, nil)
            return
        }
        defer { g_object_unref(stream) }
        soup_server_accept_iostream(server, UnsafeMutableRawPointer(stream).assumingMemoryBound(to: GIOStream.self), local, remote, nil)
    }

    /// The connections the descriptor limit leaves room for: the soft limit less the
    /// descriptors open now and a margin for the pictures' files (16, and 8 a worker), so that
    /// the cap, not the limit, is met first and the pictures being read still have theirs.
    static func connectionRoom(workers: Int) -> Int {
        let files = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
        var limit = rlimit()
        guard getrlimit(files, &limit) == 0, limit.rlim_cur != rlim_t.max else { return .max }
        var used = 0
        if let directory = opendir("/proc/self/fd") {
            while let entry = readdir(directory) { if entry.pointee.d_name.0 != CChar(UInt8(ascii: ".")) { used += 1 } }
            closedir(directory)
        }
        return max(1, Int(limit.rlim_cur) - used - 16 - 8 * workers)
    }
}
