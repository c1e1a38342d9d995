import CSoup
import ImagePipe

extension ImagePipeCommand {
    /// A request's head as `imagepipe serve` receives it: what libsoup's server hands to the
    /// handler after parsing the bytes (the path with its escapes decoded, the query as sent),
    /// the headers the server reads, and whether a Range or If-Range header is left once the
    /// server has passed them over.
    public struct ServedRequestHead: Sendable {
        public let method: String
        public let path: String
        public let query: String?
        public let accept: String?
        public let ifNoneMatch: String?
        /// Whether the request asked for ranges (Range or If-Range) at all.
        public let askedForRanges: Bool
        /// Whether a Range or If-Range header is still there after `ServeServer.passOverRanges`.
        public let rangesLeft: Bool
    }

    /// What `imagepipe serve` decides for a request before it looks at any file: the address and
    /// its signature read, the pipeline compiled and checked, the response's format chosen (the
    /// address's, the pipeline's, or from Accept), and If-None-Match compared with an entity tag.
    public struct ServedDecision: Sendable {
        /// 200 when a picture would be made; otherwise the status the request is refused with.
        public let status: UInt32
        /// Why it is refused (nil when it is not).
        public let message: String?
        public let source: String?
        public let isOrigin: Bool
        /// The pipeline's canonical text.
        public let pipeline: String?
        /// The response's Content-Type.
        public let mediaType: String?
        /// Whether the format was chosen from Accept (the response then varies by it).
        public let negotiated: Bool
        /// Whether If-None-Match names the entity tag (the response is then 304).
        public let notModified: Bool
    }

    /// The media types `imagepipe serve` answers in, in its order of preference.
    public static var servedMediaTypes: [String] { ServedFormat.all.map(\.mediaType) }

    /// The weight a request's Accept header (nil: none) gives `mediaType`, as the server reads
    /// it: the most specific range's, wildcards counted only when `wildcards`.
    public static func acceptWeight(_ accept: String?, of mediaType: String, wildcards: Bool) -> Double {
        AcceptHeader(accept).quality(of: mediaType, wildcards: wildcards)
    }

    /// The media type the server answers a request for the source `name` in when the address
    /// names no format (`ServedFormat.negotiated`).
    public static func negotiatedMediaType(accept: String?, sourceName name: String) -> String {
        ServedFormat.negotiated(accept: AcceptHeader(accept), source: ImageFormat(fileName: name)).mediaType
    }

    /// The address `imagepipe url` writes for `source` through `pipeline` (a signature from `key`
    /// and `salt`; nil key: `_`, unsigned): `path` as the server reads it (escapes decoded) and
    /// `sent`, with the source's escapes, as a client sends it.
    public static func servedAddress(pipeline: String, source: String, format: ImageFormat?, key: [UInt8]?, salt: [UInt8],
                                     signatureSize: Int = 32) -> (path: String, sent: String) {
        let path = ImageURL.unsignedPath(pipeline: pipeline, source: source, format: format)
        let signature = key.map { URLSignature(key: $0, salt: salt, size: signatureSize).sign(path.signed) } ?? "_"
        return ("/" + signature + path.signed, "/" + signature + path.sent)
    }

    /// The signature of `signedPath` (the address from the `/` after the signature segment) with
    /// `key` and `salt`, as the server checks it.
    public static func servedSignature(of signedPath: String, key: [UInt8], salt: [UInt8], size: Int = 32) -> String {
        URLSignature(key: key, salt: salt, size: size).sign(signedPath)
    }

    /// Parses `bytes` as an HTTP/1 request head with libsoup (soup_headers_parse_request, as its
    /// server does) and makes the request's URI and path as libsoup's server makes them for its
    /// handler; nil for a request libsoup's server answers itself (400, 501…) before the handler.
    /// The Range and If-Range headers are then passed over as the server passes them over.
    public static func servedRequestHead(_ bytes: [UInt8]) -> ServedRequestHead? {
        guard let headers = soup_message_headers_new(SOUP_MESSAGE_HEADERS_REQUEST) else { return nil }
        defer { soup_message_headers_unref(headers) }
        var method: UnsafeMutablePointer<CChar>?, target: UnsafeMutablePointer<CChar>?
        var version = SOUP_HTTP_1_1
        let status = bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) {
                soup_headers_parse_request($0.baseAddress, Int32(clamping: $0.count), headers, &method, &target, &version)
            }
        }
        defer { g_free(method); g_free(target) }
        guard status >= 200, status < 300, let method, let target else { return nil }
        func header(_ name: String) -> String? { soup_message_headers_get_one(headers, name).map { String(cString: $0) } }
        // soup-server-message-io-http1.c's parse_headers: the body's encoding must be known, the
        // Host must hold no '/', and the URI is the target read against the Host.
        guard soup_message_headers_get_encoding(headers) != SOUP_ENCODING_UNRECOGNIZED else { return nil }
        let host = header("Host")
        if let host, host.contains("/") { return nil }
        let methodName = String(cString: method), targetText = String(cString: target)
        let flags = GUriFlags(rawValue: G_URI_FLAGS_HAS_PASSWORD.rawValue | G_URI_FLAGS_ENCODED_PATH.rawValue | G_URI_FLAGS_ENCODED_QUERY.rawValue
                              | G_URI_FLAGS_ENCODED_FRAGMENT.rawValue | G_URI_FLAGS_SCHEME_NORMALIZE.rawValue)
        let uri: OpaquePointer?
        if targetText == "*" || methodName == "CONNECT" {
            return nil  // OPTIONS * and CONNECT: never a picture's address
        } else if !targetText.hasPrefix("/") {
            uri = g_uri_parse(targetText, flags, nil)
        } else if let host {
            uri = g_uri_parse("http://" + host + targetText, flags, nil)
        } else if version == SOUP_HTTP_1_0 {
            uri = g_uri_build(flags, "http", nil, "127.0.0.1", 8080, targetText, nil, nil)
        } else {
            return nil
        }
        guard let uri else { return nil }
        defer { g_uri_unref(uri) }
        // soup-server.c's got_headers: an http URI, its path decoded, no ".." segment made by the decoding.
        guard g_uri_get_host(uri) != nil, let scheme = g_uri_get_scheme(uri), String(cString: scheme).lowercased() == "http",
              let decoded = g_uri_unescape_string(g_uri_get_path(uri), nil) else { return nil }
        defer { g_free(decoded) }
        let path = String(cString: decoded)
        if path.contains("/../") || path.hasSuffix("/..") { return nil }
        let query = g_uri_get_query(uri).map { String(cString: $0) }
        let askedForRanges = header("Range") != nil || header("If-Range") != nil
        ServeServer.passOverRanges(headers)
        return ServedRequestHead(method: methodName, path: path.isEmpty ? "/" : path, query: query, accept: header("Accept"),
                                 ifNoneMatch: header("If-None-Match"), askedForRanges: askedForRanges,
                                 rangesLeft: header("Range") != nil || header("If-Range") != nil)
    }

    /// What the server decides for the address `path` (escapes decoded) with these headers,
    /// signed with `key` and `salt` (nil key: unsigned addresses served), before any file is
    /// looked at; `etag` stands for the picture's entity tag.
    public static func servedDecision(path: String, accept: String?, ifNoneMatch: String?, key: [UInt8]?, salt: [UInt8],
                                      compiler: PipelineCompiler, etag: String) -> ServedDecision {
        let signature = key.map { URLSignature(key: $0, salt: salt, size: 32) }
        do throws(ServeError) {
            let url = try ServeServer.address(path, signature: signature)
            let (pipeline, save) = try ServeServer.servedPipeline(url.pipeline, compiler: compiler)
            let (served, negotiated) = try ServeServer.format(of: url, save: save, accept: accept)
            return ServedDecision(status: 200, message: nil, source: url.source, isOrigin: url.isOrigin, pipeline: pipeline.text,
                                  mediaType: served.mediaType, negotiated: negotiated,
                                  notModified: ServeServer.isNotModified(ifNoneMatch: ifNoneMatch, etag: etag))
        } catch {
            return ServedDecision(status: error.status, message: error.message, source: nil, isOrigin: false, pipeline: nil,
                                  mediaType: nil, negotiated: false, notModified: false)
        }
    }
}
