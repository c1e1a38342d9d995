import CSoup
import ImagePipe
#if canImport(Glibc)
import Glibc
#endif

/// A source fetched from an HTTP(S) origin with libsoup, on the worker that makes its picture,
/// under `OriginPolicy`'s rules: the URL under an `--origin` prefix, every address the name
/// resolves to and every address a connection is made to of an allowed kind (`OriginAddress`),
/// redirects followed one by one (each checked the same way) up to the policy's cap, the body
/// read up to `maxBytes`, all by the request's deadline.
enum OriginFetch {
    /// The bytes of `url`, or the status and message the request is answered with.
    static func fetch(_ url: String, policy: OriginPolicy, deadline: ContinuousClock.Instant?) throws(ServeError) -> [UInt8] {
        let session = soup_session_new()!
        defer { g_object_unref(UnsafeMutableRawPointer(session)) }
        if let authorities = policy.authorities {
            guard let database = trustedAuthorities(authorities) else { throw ServeError(502, "the origins' certificate authorities (--origin-ca) cannot be read") }
            soup_session_set_tls_database(session, database)
            g_object_unref(UnsafeMutableRawPointer(database))
        }
        var current = url
        for _ in 0...policy.maxRedirects {
            guard policy.permits(current) else {
                throw ServeError(403, "\(current == url ? "the source" : "a redirect") is under no origin this server fetches from (--origin)")
            }
            try checkName(of: current, policy: policy)
            let remaining = deadline.map { max(1, Int(($0 - .now).components.seconds)) } ?? 60
            soup_session_set_timeout(session, UInt32(min(remaining, 60)))
            guard let message = soup_message_new("GET", current) else { throw ServeError(400, "the source is not an HTTP(S) URL") }
            defer { g_object_unref(UnsafeMutableRawPointer(message)) }
            soup_message_set_flags(message, SOUP_MESSAGE_NO_REDIRECT)
            let watch = ConnectionWatch(policy: policy)
            watch.connect(to: message)
            var error: UnsafeMutablePointer<GError>?
            let stream = soup_session_send(session, message, watch.cancellable, &error)
            defer { if let stream { g_object_unref(UnsafeMutableRawPointer(stream)) } }
            if let refusal = watch.refusal { g_clear_error(&error); throw ServeError(403, "the origin's address is \(refusal)") }
            guard let stream else { throw failure(error, deadline: deadline) }
            let status = Int(soup_message_get_status(message).rawValue)
            if (300..<400).contains(status) {
                guard let location = soup_message_headers_get_one(soup_message_get_response_headers(message), "Location"),
                      let next = g_uri_resolve_relative(current, location, G_URI_FLAGS_NONE, nil) else {
                    throw ServeError(502, "the origin answered \(status) without a usable Location")
                }
                current = String(cString: next)
                g_free(next)
                continue
            }
            guard status == 200 else {
                throw status == 404 || status == 410 ? ServeError(404, "the origin has no such picture (\(status))")
                    : ServeError(502, "the origin answered \(status)")
            }
            return try read(stream, limit: policy.maxBytes, cancellable: watch.cancellable, deadline: deadline)
        }
        throw ServeError(502, "the origin redirected more than \(policy.maxRedirects) times (--max-redirects)")
    }

    /// The certificate authorities in the PEM file at the absolute `path`, or nil when it cannot be read.
    private static func trustedAuthorities(_ path: String) -> UnsafeMutablePointer<GTlsDatabase>? {
        var error: UnsafeMutablePointer<GError>?
        let database = g_tls_file_database_new(path, &error)
        g_clear_error(&error)
        return database
    }

    /// How many certificates the PEM file at `path` holds: 0 when it is unreadable or holds none
    /// (a database over such a file would trust nothing without saying so).
    static func certificateCount(in path: String) -> Int {
        var error: UnsafeMutablePointer<GError>?
        let list = g_tls_certificate_list_new_from_file(path, &error)
        g_clear_error(&error)
        defer { g_list_free_full(list) { g_object_unref($0) } }
        return Int(g_list_length(list))
    }

    /// Refuses a URL whose host name resolves to an address the policy does not allow, before
    /// any connection (`ConnectionWatch` checks the address connected to again).
    private static func checkName(of url: String, policy: OriginPolicy) throws(ServeError) {
        guard let uri = g_uri_parse(url, G_URI_FLAGS_NONE, nil) else { throw ServeError(400, "the source is not a URL") }
        defer { g_uri_unref(uri) }
        guard let host = g_uri_get_host(uri) else { throw ServeError(400, "the source URL names no host") }
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var found: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, nil, &hints, &found) == 0 else { throw ServeError(502, "the origin's name does not resolve") }
        defer { freeaddrinfo(found) }
        var entry = found
        while let info = entry?.pointee {
            if let address = info.ai_addr, let refusal = policy.refusal(of: OriginAddress(bytes: bytes(of: address))) {
                throw ServeError(403, "the origin's name resolves to \(refusal)")
            }
            entry = info.ai_next
        }
    }

    /// The address bytes of an IPv4 or IPv6 socket address.
    private static func bytes(of address: UnsafePointer<sockaddr>) -> [UInt8] {
        switch Int32(address.pointee.sa_family) {
        case AF_INET:
            return address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { withUnsafeBytes(of: $0.pointee.sin_addr) { Array($0) } }
        case AF_INET6:
            return address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { withUnsafeBytes(of: $0.pointee.sin6_addr) { Array($0) } }
        default:
            return []
        }
    }

    /// The body, refused once past `limit` (413), or past the deadline (504).
    private static func read(_ stream: UnsafeMutablePointer<GInputStream>, limit: Int?, cancellable: UnsafeMutablePointer<GCancellable>,
                             deadline: ContinuousClock.Instant?) throws(ServeError) -> [UInt8] {
        var body: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            if let deadline, .now > deadline { throw ServeError(504, "the origin took longer than the time limit") }
            var error: UnsafeMutablePointer<GError>?
            let count = chunk.withUnsafeMutableBytes { g_input_stream_read(stream, $0.baseAddress, gsize($0.count), cancellable, &error) }
            guard count >= 0 else { throw failure(error, deadline: deadline) }
            if count == 0 { return body }
            body += chunk[..<Int(count)]
            if let limit, body.count > limit {
                throw ServeError(413, "the origin's picture is larger than --max-input-bytes \(limit)")
            }
        }
    }

    /// The status a failed exchange is answered with: 504 past the time limit, else 502.
    private static func failure(_ error: UnsafeMutablePointer<GError>?, deadline: ContinuousClock.Instant?) -> ServeError {
        defer { if let error { g_error_free(error) } }
        let timedOut = error.map { $0.pointee.domain == g_io_error_quark() && $0.pointee.code == Int32(G_IO_ERROR_TIMED_OUT.rawValue) } ?? false
        if timedOut || deadline.map({ .now > $0 }) == true { return ServeError(504, "the origin took longer than the time limit") }
        if let error, error.pointee.domain == g_tls_error_quark() {
            return ServeError(502, "the origin's TLS certificate is not trusted for its name (--origin-ca names the authorities to trust)")
        }
        return ServeError(502, "the origin could not be reached")
    }
}
