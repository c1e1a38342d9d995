import CSoup
import ImagePipe
#if canImport(Glibc)
import Glibc
#endif

/// The editor's web server: libsoup 3 on 127.0.0.1 only, at a free port, serving paths under a
/// token made for this run. A request is refused (403) without the token, or with a Host or
/// Origin header naming another site: a page elsewhere in the same browser cannot reach the
/// editor, and DNS rebinding cannot either. Handlers run on the GLib main loop's thread.
///
/// Every check that needs only the headers is made in an early handler, as soon as they are
/// read: a refused request (403), a body announced larger than `EditLimits.maxBody` (413) or one
/// libsoup could not bound (411) is answered there and its connection closed, so its body is
/// never read; a chunked body is counted as it comes and cut off (413) past the limit.
/// `ServerConnections` closes connections that are slow to send a request or take a response,
/// and keeps their number bounded.
@MainActor
final class EditServer {
    /// A request that passed the checks: its path below the token (`""` for the page itself).
    struct Request {
        let method: String
        let path: String
        let body: [UInt8]
    }

    struct Response {
        var status: UInt32
        var contentType: String
        var body: [UInt8]

        static func text(_ status: UInt32, _ text: String) -> Response {
            Response(status: status, contentType: "text/plain; charset=utf-8", body: Array(text.utf8))
        }

        static func json(_ value: JSONValue) -> Response {
            Response(status: 200, contentType: "application/json", body: Array(value.text.utf8))
        }
    }

    let token: String
    private(set) var port = 0
    /// What the routes answer; set before `run`.
    var route: (Request) -> Response = { _ in .text(404, "not found") }
    /// Called on SIGINT or SIGTERM, before the loop stops.
    var onSignal: (Int32) -> Void = { _ in }

    private let server: UnsafeMutablePointer<SoupServer>
    private let loop: OpaquePointer
    private var status: Int32 = 1
    /// The message whose response, once sent, ends the run.
    private var lastMessage: OpaquePointer?

    let limits: EditLimits
    private let connections: ServerConnections

    init(port requestedPort: UInt32 = 0, limits: EditLimits = .fromEnvironment()) throws {
        token = Self.makeToken()
        self.limits = limits
        connections = ServerConnections(timeoutMilliseconds: limits.timeoutMilliseconds, maxConnections: limits.maxConnections)
        guard let object = g_object_new_with_properties(soup_server_get_type(), 0, nil, nil) else {
            throw StageError("cannot make the editor's server")
        }
        server = UnsafeMutableRawPointer(object).assumingMemoryBound(to: SoupServer.self)
        loop = g_main_loop_new(nil, 0)
        let context = Unmanaged.passUnretained(self).toOpaque()
        soup_server_add_handler(server, nil, { _, message, path, _, context in
            guard let message, let context else { return }
            MainActor.assumeIsolated {
                Unmanaged<EditServer>.fromOpaque(context).takeUnretainedValue().handle(message, path: path.map { String(cString: $0) } ?? "/")
            }
        }, context, nil)
        soup_server_add_early_handler(server, nil, { _, message, path, _, context in
            guard let message, let context else { return }
            MainActor.assumeIsolated {
                Unmanaged<EditServer>.fromOpaque(context).takeUnretainedValue().early(message, path: path.map { String(cString: $0) } ?? "/")
            }
        }, context, nil)
        // The response that ends the run, once sent, ends the loop.
        let finished: @convention(c) (OpaquePointer?, OpaquePointer?, gpointer?) -> Void = { _, message, context in
            guard let context else { return }
            MainActor.assumeIsolated {
                let server = Unmanaged<EditServer>.fromOpaque(context).takeUnretainedValue()
                if let message, message == server.lastMessage { g_main_loop_quit(server.loop) }
            }
        }
        for name in ["request-finished", "request-aborted"] {
            g_signal_connect_data(UnsafeMutableRawPointer(server), name, unsafeBitCast(finished, to: GCallback.self), context, nil, GConnectFlags(rawValue: 0))
        }
        // The listening socket is made here, not by soup_server_listen_local, for its backlog:
        // libsoup accepts one connection per turn of the loop, and with the default backlog of
        // 10 a burst of connections has the kernel drop the page's own for a second or more.
        var error: UnsafeMutablePointer<GError>?
        let address = g_inet_socket_address_new_from_string("127.0.0.1", requestedPort)
        defer { if let address { g_object_unref(address) } }
        let socket = g_socket_new(G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_TCP, &error)
        defer { if let socket { g_object_unref(socket) } }
        if let socket {
            g_socket_set_listen_backlog(socket, 128)
        }
        guard let socket, let address, g_socket_bind(socket, address, 1, &error) != 0, g_socket_listen(socket, &error) != 0,
              soup_server_listen_socket(server, socket, SoupServerListenOptions(rawValue: 0), &error) != 0 else {
            let message = error.map { String(cString: $0.pointee.message) } ?? "unknown error"
            if let error { g_error_free(error) }
            throw StageError("the editor cannot listen on 127.0.0.1: \(message)")
        }
        connections.watch(server)
        let uris = soup_server_get_uris(server)
        if let first = uris?.pointee.data { port = Int(g_uri_get_port(OpaquePointer(first))) }
        g_slist_free_full(uris) { g_uri_unref(OpaquePointer($0)) }
    }

    /// The page's address, token included.
    var url: String { "http://127.0.0.1:\(port)/\(token)/" }

    /// Serves until `finish`, a signal or the end of the loop; returns the exit status.
    func run() -> Int32 {
        // A parent may have started us with these signals blocked (test runners do); the mask is
        // inherited across exec, and a blocked signal would never reach the loop.
        var signals = sigset_t()
        sigemptyset(&signals)
        sigaddset(&signals, SIGINT)
        sigaddset(&signals, SIGTERM)
        pthread_sigmask(SIG_UNBLOCK, &signals, nil)
        for number in [SIGINT, SIGTERM] {
            let box = Unmanaged.passRetained(SignalBox(server: self, number: number)).toOpaque()
            g_unix_signal_add(number, { context in
                MainActor.assumeIsolated {
                    let box = Unmanaged<SignalBox>.fromOpaque(context!).takeUnretainedValue()
                    box.server.onSignal(box.number)
                    box.server.status = 1
                    g_main_loop_quit(box.server.loop)
                }
                return 0
            }, box)
        }
        g_main_loop_run(loop)
        soup_server_disconnect(server)
        return status
    }

    private final class SignalBox {
        let server: EditServer
        let number: Int32
        init(server: EditServer, number: Int32) {
            self.server = server
            self.number = number
        }
    }

    /// Ends the run with `status` once the response to the request being handled has been sent.
    func finish(_ status: Int32, after message: OpaquePointer?) {
        self.status = status
        if let message {
            lastMessage = message
            // Should the client go away before the response is sent, end anyway.
            g_timeout_add(2000, { context in
                MainActor.assumeIsolated { g_main_loop_quit(Unmanaged<EditServer>.fromOpaque(context!).takeUnretainedValue().loop) }
                return 0
            }, Unmanaged.passUnretained(self).toOpaque())
        } else {
            g_main_loop_quit(loop)
        }
    }

    /// Runs `body` on the loop after `milliseconds`.
    func after(milliseconds: UInt32, _ body: @escaping @MainActor () -> Void) {
        let box = Unmanaged.passRetained(TimerBox(body)).toOpaque()
        g_timeout_add(milliseconds, { context in
            MainActor.assumeIsolated {
                let box = Unmanaged<TimerBox>.fromOpaque(context!).takeRetainedValue()
                box.body()
            }
            return 0
        }, box)
    }

    private final class TimerBox {
        let body: @MainActor () -> Void
        init(_ body: @escaping @MainActor () -> Void) { self.body = body }
    }

    /// The message being handled, for `finish(_:after:)`.
    private(set) var currentMessage: OpaquePointer?

    private func handle(_ message: OpaquePointer, path: String) {
        let response: Response
        if let refusal = refusal(message, path: path) {
            response = .text(403, refusal)
        } else {
            let method = soup_server_message_get_method(message).map { String(cString: $0) } ?? "GET"
            var body: [UInt8] = []
            if let requestBody = soup_server_message_get_request_body(message), let bytes = soup_message_body_flatten(requestBody) {
                var length: gsize = 0
                if let data = g_bytes_get_data(bytes, &length), length > 0 {
                    body = Array(UnsafeRawBufferPointer(start: data, count: Int(length)))
                }
                g_bytes_unref(bytes)
            }
            currentMessage = message
            response = route(Request(method: method, path: String(path.dropFirst(token.count + 2)), body: body))
            currentMessage = nil
        }
        let headers = soup_server_message_get_response_headers(message)
        for (name, value) in Self.securityHeaders { soup_message_headers_replace(headers, name, value) }
        soup_server_message_set_status(message, response.status, nil)
        response.body.withUnsafeBytes { buffer in
            soup_server_message_set_response(message, response.contentType, SOUP_MEMORY_COPY,
                                             buffer.baseAddress?.assumingMemoryBound(to: CChar.self), gsize(buffer.count))
        }
    }

    /// Runs once a request's headers are read, before its body: refuses what the headers
    /// already condemn without reading the body, and counts a chunked body as it comes.
    private func early(_ message: OpaquePointer, path: String) {
        if let refusal = refusal(message, path: path) { return reject(message, 403, refusal) }
        let headers = soup_server_message_get_request_headers(message)
        let limit = "the editor takes request bodies of at most \(limits.maxBody) bytes"
        switch soup_message_headers_get_encoding(headers) {
        case SOUP_ENCODING_NONE:
            break
        case SOUP_ENCODING_CONTENT_LENGTH:
            let length = soup_message_headers_get_content_length(headers)
            if length > goffset(limits.maxBody) { reject(message, 413, "\(limit); this one announces \(length)") }
        case SOUP_ENCODING_CHUNKED:
            let gotChunk: @convention(c) (OpaquePointer?, OpaquePointer?, gpointer?) -> Void = { message, _, context in
                guard let message, let context else { return }
                MainActor.assumeIsolated {
                    let server = Unmanaged<EditServer>.fromOpaque(context).takeUnretainedValue()
                    // libsoup has added the chunk to the body before it says so.
                    guard let body = soup_server_message_get_request_body(message), body.pointee.length > goffset(server.limits.maxBody) else { return }
                    server.reject(message, 413, "the editor takes request bodies of at most \(server.limits.maxBody) bytes")
                }
            }
            g_signal_connect_data(UnsafeMutableRawPointer(message), "got-chunk", unsafeBitCast(gotChunk, to: GCallback.self),
                                  Unmanaged.passUnretained(self).toOpaque(), nil, GConnectFlags(rawValue: 0))
        default:
            reject(message, 411, "the editor needs a Content-Length or a chunked body")
        }
    }

    /// Answers `status` on the message's connection itself and closes it: the connection is
    /// taken from libsoup, so nothing more of the request is read. The answer is sent without
    /// waiting (a client that reads nothing gets nothing), and a client still sending may see
    /// the connection reset instead.
    private func reject(_ message: OpaquePointer, _ status: UInt32, _ text: String) {
        guard let socket = soup_server_message_get_socket(message) else {
            // A connection without a socket (libsoup's listener makes none such): libsoup answers
            // instead, and keeps none of the body it still reads.
            soup_message_body_set_accumulate(soup_server_message_get_request_body(message), 0)
            soup_message_headers_replace(soup_server_message_get_response_headers(message), "Connection", "close")
            soup_server_message_set_status(message, status, nil)
            return
        }
        g_object_ref(socket)
        defer { g_object_unref(socket) }
        let stream = soup_server_message_steal_connection(message)
        let reason = soup_status_get_phrase(status).map { String(cString: $0) } ?? "Refused"
        let body = Array((text + "\n").utf8)
        var head = "HTTP/1.1 \(status) \(reason)\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: \(body.count)\r\nConnection: close\r\n"
        for (name, value) in Self.securityHeaders { head += "\(name): \(value)\r\n" }
        let bytes = Array((head + "\r\n").utf8) + body
        _ = bytes.withUnsafeBytes { g_socket_send_with_blocking(socket, $0.baseAddress?.assumingMemoryBound(to: CChar.self), gsize($0.count), 0, nil, nil) }
        g_socket_shutdown(socket, 0, 1, nil)
        if let stream {
            g_io_stream_close(stream, nil, nil)
            g_object_unref(stream)
        }
        g_socket_close(socket, nil)
    }

    /// Why a request is refused, or nil. The token is the first path segment; Host must name
    /// this server (so a rebinding DNS name is refused); Origin, when a browser sends one, must
    /// be this server too.
    private func refusal(_ message: OpaquePointer, path: String) -> String? {
        let headers = soup_server_message_get_request_headers(message)
        func header(_ name: String) -> String? { soup_message_headers_get_one(headers, name).map { String(cString: $0) } }
        let hosts = ["127.0.0.1:\(port)", "localhost:\(port)"]
        guard let host = header("Host"), hosts.contains(host) else { return "refused: the Host header does not name this editor" }
        if let origin = header("Origin"), !hosts.map({ "http://" + $0 }).contains(origin) {
            return "refused: a request from another origin"
        }
        guard path.hasPrefix("/\(token)/") else { return "refused: this address needs the editor's token" }
        return nil
    }

    /// Nothing cached, no referrer (the token is in the address), no framing, and scripts,
    /// styles, pictures and requests only from the editor itself.
    static let securityHeaders = [
        ("Cache-Control", "no-store"),
        ("Referrer-Policy", "no-referrer"),
        ("X-Content-Type-Options", "nosniff"),
        ("Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"),
    ]

    /// 128 random bits in hex, from the system's generator (getrandom).
    static func makeToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<4).map { _ in
            let hex = String(UInt32.random(in: 0...UInt32.max, using: &generator), radix: 16)
            return String(repeating: "0", count: 8 - hex.count) + hex
        }.joined()
    }
}
