import CSoup
import ImagePipe
#if canImport(Glibc)
import Glibc
#endif

/// The editor's web server: libsoup 3 on 127.0.0.1 only, at a free port, serving paths under a
/// token made for this run. A request is refused (403) without the token, or with a Host or
/// Origin header naming another site: a page elsewhere in the same browser cannot reach the
/// editor, and DNS rebinding cannot either. Handlers run on the GLib main loop's thread.
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

    init(port requestedPort: UInt32 = 0) throws {
        token = Self.makeToken()
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
        let finished: @convention(c) (OpaquePointer?, OpaquePointer?, gpointer?) -> Void = { _, message, context in
            guard let context else { return }
            MainActor.assumeIsolated {
                let server = Unmanaged<EditServer>.fromOpaque(context).takeUnretainedValue()
                if let message, message == server.lastMessage { g_main_loop_quit(server.loop) }
            }
        }
        g_signal_connect_data(UnsafeMutableRawPointer(server), "request-finished", unsafeBitCast(finished, to: GCallback.self), context, nil, GConnectFlags(rawValue: 0))
        var error: UnsafeMutablePointer<GError>?
        guard soup_server_listen_local(server, requestedPort, SOUP_SERVER_LISTEN_IPV4_ONLY, &error) != 0 else {
            let message = error.map { String(cString: $0.pointee.message) } ?? "unknown error"
            if let error { g_error_free(error) }
            throw StageError("the editor cannot listen on 127.0.0.1: \(message)")
        }
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
