import CSoup
import Dispatch
import ImagePipe
#if canImport(Glibc)
import Glibc
#endif

/// `imagepipe serve`'s HTTP server: libsoup 3 on the GLib main loop, which reads requests and
/// writes responses for every connection without blocking, so a slow client holds no worker.
/// The picture work runs on `workers` threads beside the loop: a request for a picture is
/// paused, handed to a worker, and resumed with its response when the work is done. At most
/// `workers + queue` requests are at work or waiting; past that a request is answered 503 with
/// Retry-After at once.
@MainActor
final class ServeServer {
    struct Configuration: Sendable {
        /// The real path of the folder the sources lie in.
        let root: String
        /// nil: unsigned addresses are served (`--unsigned`).
        let signature: URLSignature?
        let workers: Int
        let queue: Int
        let loadOptions: LoadOptions
        let timeout: Double?
        /// Cache-Control max-age of a picture, in seconds.
        let maxAge: Int
        /// Open connections at most, and how long one may take to send a request or take a response.
        let maxConnections: Int
        let clientTimeoutMilliseconds: UInt32
        /// What the pictures being made may hold together; nil for no limit.
        let memory: MemoryBudget?
        let compiler: PipelineCompiler
        /// The HTTP(S) sources fetched, and how (`--origin`).
        var origins = OriginPolicy()
        /// Whether the IIIF Image API is served under /iiif/2/ (2.1) and /iiif/3/ (3.0) (`--iiif`), unsigned.
        var iiif = false
        /// `RunContext.streamAboveBytes` of every request: the busy cores' threshold when the
        /// workers are as many as the cores.
        var streamAboveBytes: Int { RunContext.streamAboveBytes(picturesAtOnce: workers) }
    }

    struct Response {
        var status: UInt32
        var contentType: String
        var body: [UInt8]
        var headers: [(String, String)] = []

        static func json(_ status: UInt32, _ value: JSONValue, headers: [(String, String)] = []) -> Response {
            Response(status: status, contentType: "application/json", body: Array((value.text + "\n").utf8), headers: headers)
        }

        static func error(_ error: ServeError, headers: [(String, String)] = []) -> Response {
            json(error.status, .object([("status", .number(Double(error.status))), ("error", .string(error.message))]), headers: headers)
        }
    }

    /// What an IIIF address asks for (`prepareIIIF`).
    enum IIIFAnswer {
        case answer(Response)
        case work(ServeJob, etag: String, headers: [(String, String)], contentType: String)
    }

    let configuration: Configuration
    private(set) var address = ""
    private let server: UnsafeMutablePointer<SoupServer>
    private let loop: OpaquePointer
    private let scratch: String
    private let workerSlots: DispatchSemaphore
    /// Taken by a worker once it has made what it hands to the loop, and by the loop before it
    /// reads any of it (`onLoop`).
    nonisolated private static let loopHandover = Locked(0)
    private var scratchCount = 0
    /// Requests at work or waiting for a worker.
    private(set) var inFlight = 0
    /// Requests handed to the workers that none has taken yet (counted apart from `inFlight`: a
    /// request made stays in flight until the loop has answered it, while its worker takes the next).
    private let queued = Locked(0)
    /// After SIGTERM: new requests get 503, and the loop ends once the last one in flight is answered.
    private var draining = false
    private let metrics = ServeMetrics()
    /// Bytes of the responses given to libsoup and not yet freed (`hold`).
    private var heldResponses = 0
    /// Slow clients are cut off and the connections bounded: libsoup's server does neither.
    private let connections: ServerConnections
    /// Takes the connections, and hands them to libsoup.
    private let listener: ServeListener

    init(configuration: Configuration, listen: String, port: UInt32) throws {
        self.configuration = configuration
        workerSlots = DispatchSemaphore(value: configuration.workers)
        // The descriptor limit bounds the connections before --max-connections would.
        let room = ServeListener.connectionRoom(workers: configuration.workers)
        if room < configuration.maxConnections {
            Console.error("serve: at most \(room) connections at once (not --max-connections' \(configuration.maxConnections)): the file descriptor limit leaves room for no more")
        }
        connections = ServerConnections(timeoutMilliseconds: configuration.clientTimeoutMilliseconds, maxConnections: min(room, configuration.maxConnections))
        let temporary = getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp"
        var template = Array("\(temporary)/imagepipe-serve-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw UsageError("serve cannot make its scratch folder: \(String(cString: strerror(errno)))") }
        scratch = String(cString: made)
        guard let object = g_object_new_with_properties(soup_server_get_type(), 0, nil, nil) else {
            throw UsageError("serve cannot make its server")
        }
        server = UnsafeMutableRawPointer(object).assumingMemoryBound(to: SoupServer.self)
        loop = g_main_loop_new(nil, 0)
        listener = try ServeListener(server: server, connections: connections, host: listen, port: port)
        address = listener.address
        soup_server_add_handler(server, nil, { _, message, path, _, context in
            guard let message, let context else { return }
            // libsoup has decoded every escape of the path (`%2F` too): see ImageURL.
            let query = soup_server_message_get_uri(message).flatMap { g_uri_get_query($0) }.map { String(cString: $0) }
            MainActor.assumeIsolated {
                Unmanaged<ServeServer>.fromOpaque(context).takeUnretainedValue().handle(message, path: path.map { String(cString: $0) } ?? "/",
                                                                                        query: query)
            }
        }, Unmanaged.passUnretained(self).toOpaque(), nil)
        // While draining, the loop ends once the last response in flight has been sent.
        let finished: @convention(c) (OpaquePointer?, OpaquePointer?, gpointer?) -> Void = { _, _, context in
            guard let context else { return }
            MainActor.assumeIsolated {
                let server = Unmanaged<ServeServer>.fromOpaque(context).takeUnretainedValue()
                if server.draining, server.inFlight == 0 { g_main_loop_quit(server.loop) }
            }
        }
        for name in ["request-finished", "request-aborted"] {
            g_signal_connect_data(UnsafeMutableRawPointer(server), name, unsafeBitCast(finished, to: GCallback.self),
                                  Unmanaged.passUnretained(self).toOpaque(), nil, GConnectFlags(rawValue: 0))
        }
        connections.watch(server)
        listener.start()
    }

    /// How often the heaps' free pages are given back to the system.
    static let memoryReturnSeconds: UInt32 = 10

    /// Serves until SIGINT, or SIGTERM and the drain after it; returns the exit status.
    func run() -> Int32 {
        var signals = sigset_t()
        sigemptyset(&signals)
        sigaddset(&signals, SIGINT)
        sigaddset(&signals, SIGTERM)
        pthread_sigmask(SIG_UNBLOCK, &signals, nil)
        let context = Unmanaged.passUnretained(self).toOpaque()
        g_unix_signal_add(SIGTERM, { context in
            MainActor.assumeIsolated { Unmanaged<ServeServer>.fromOpaque(context!).takeUnretainedValue().drain() }
            return 0
        }, context)
        g_unix_signal_add(SIGINT, { context in
            MainActor.assumeIsolated { g_main_loop_quit(Unmanaged<ServeServer>.fromOpaque(context!).takeUnretainedValue().loop) }
            return 0
        }, context)
        // Pictures of every size come and go on every worker, and the heaps keep the free pages
        // between what is still held: glibc gives them back to the system only from a heap's
        // top, or when asked. Asked every 10 seconds (imgproxy's default interval for the same
        // call), a worker waits at most for one walk of the free lists.
        g_timeout_add_seconds(Self.memoryReturnSeconds, { _ in
            malloc_trim(0)
            return 1
        }, nil)
        g_main_loop_run(loop)
        soup_server_disconnect(server)
        rmdir(scratch)
        return 0
    }

    /// SIGTERM: the requests in flight finish, new ones are answered 503, then the loop ends.
    private func drain() {
        draining = true
        Console.error("serve: draining \(inFlight) request(s), then stopping")
        if inFlight == 0 { g_main_loop_quit(loop) }
    }

    private func handle(_ message: OpaquePointer, path: String, query: String?) {
        let started = ContinuousClock.now
        let method = soup_server_message_get_method(message).map { String(cString: $0) } ?? "GET"
        let headers = soup_server_message_get_request_headers(message)
        func header(_ name: String) -> String? { soup_message_headers_get_one(headers, name).map { String(cString: $0) } }
        let finish = { [self] (response: Response) in
            respond(message, response, method: method, path: path, started: started)
        }
        guard method == "GET" || method == "HEAD" else {
            return finish(.error(ServeError(405, "only GET and HEAD are served"), headers: [("Allow", "GET, HEAD")]))
        }
        switch path {
        case "/health":
            return finish(.json(draining ? 503 : 200, .object([("status", .string(draining ? "draining" : "ok")),
                                                             ("in_flight", .number(Double(inFlight)))])))
        case "/metrics":
            let waiting = queued.withLock { $0 }
            return finish(Response(status: 200, contentType: "text/plain; version=0.0.4", body: Array(metrics.text(inFlight: inFlight, queued: waiting, connections: connections.count, heldBytes: heldResponses).utf8)))
        default:
            break
        }
        // Any site may show the IIIF service's pictures and read its information (CORS).
        let isIIIF = IIIFVersion(path: path) != nil
        let shared: [(String, String)] = isIIIF ? [("Access-Control-Allow-Origin", "*")] : []
        if draining { return finish(.error(ServeError(503, "the server is stopping"), headers: [("Retry-After", "1")] + shared)) }
        let job: ServeJob
        let etag: String
        var answerHeaders = shared
        let contentType: String
        if isIIIF {
            guard configuration.iiif else { return finish(.error(ServeError(404, "the IIIF Image API is not served here (serve --iiif)"))) }
            do {
                switch try prepareIIIF(path: path, host: header("Host"), accept: header("Accept")) {
                case let .answer(response):
                    return finish(Response(status: response.status, contentType: response.contentType, body: response.body, headers: response.headers + shared))
                case let .work(made, tag, headers, type):
                    (job, etag, contentType) = (made, tag, type)
                    answerHeaders += headers
                }
            } catch {
                return finish(.error(error, headers: shared))
            }
        } else {
            let negotiated: Bool
            do {
                (job, etag, negotiated) = try prepare(path: path, accept: header("Accept"))
            } catch {
                return finish(.error(error))
            }
            // `?explain`: what the work would be, from the source's header alone (as `imagepipe
            // explain --json`), for a signed address only.
            if query == "explain" {
                // The worker fetches an origin's picture; the loop would wait for it here.
                guard job.origin == nil else { return finish(.error(ServeError(400, "?explain reads the server's own files, not an origin's"))) }
                return finish(explanation(of: job))
            }
            if negotiated { answerHeaders.append(("Vary", "Accept")) }
            contentType = ServedFormat(job.format)?.mediaType ?? "application/octet-stream"
        }
        let cacheHeaders = [("ETag", etag), ("Cache-Control", "public, max-age=\(configuration.maxAge)")] + answerHeaders
        if Self.isNotModified(ifNoneMatch: header("If-None-Match"), etag: etag) {
            return finish(Response(status: 304, contentType: "", body: [], headers: cacheHeaders))
        }
        guard inFlight < configuration.workers + configuration.queue else {
            metrics.refused += 1
            return finish(.error(ServeError(503, "every worker is busy and the queue is full; try again"), headers: [("Retry-After", "1")]))
        }
        // Responses that their clients have not taken fill the memory budget: no picture could
        // start beside them (the worker would refuse it too, after a wait in the queue).
        if let memory = configuration.memory, memory.heldBytes >= memory.limit {
            metrics.refused += 1
            return finish(.error(ServeError(503, "responses not yet taken by their clients hold the server's memory budget; try again"),
                                 headers: [("Retry-After", "1")]))
        }
        inFlight += 1
        g_object_ref(UnsafeMutableRawPointer(message))
        soup_server_message_pause(message)
        if let socket = ServerConnections.socket(of: message) { connections.working(socket) }
        let slots = workerSlots, queued = queued
        queued.withLock { $0 += 1 }
        // The server lives as long as the process, and the message while it holds a reference:
        // the worker names both by address.
        let server = UInt(bitPattern: Unmanaged.passUnretained(self).toOpaque())
        let messageAddress = UInt(bitPattern: UnsafeRawPointer(message))
        DispatchQueue.global().async {
            slots.wait()
            queued.withLock { $0 -= 1 }
            let outcome = job.run()
            slots.signal()
            let response: Response = switch outcome {
            case let .success(made): Response(status: 200, contentType: contentType, body: made.bytes, headers: cacheHeaders)
            // Refused for memory held by responses: to be asked again, as a full queue is.
            case let .failure(error): .error(error, headers: (error.status == 503 ? [("Retry-After", "1")] : []) + shared)
            }
            Self.onLoop(server) { server in
                let message = OpaquePointer(bitPattern: messageAddress)!
                server.inFlight -= 1
                if case let .success(made) = outcome { server.metrics.record(made) }
                if let socket = ServerConnections.socket(of: message) { server.connections.read(socket) }
                soup_server_message_unpause(message)
                server.respond(message, response, method: method, path: path, started: started)
                g_object_unref(UnsafeMutableRawPointer(message))
            }
        }
    }

    /// Everything decided before any pixel: the address, its signature, the source under the
    /// root, the pipeline and the format, and the response's entity tag.
    private func prepare(path: String, accept: String?) throws(ServeError) -> (ServeJob, etag: String, negotiated: Bool) {
        let url = try Self.address(path, signature: configuration.signature)
        // A file under the root, known by its device, inode, size and time; or a URL under an
        // origin, known by the URL (the origin's own validators come only with its answer).
        let real: String, identity: String
        var fileSize = 0
        if url.isOrigin {
            guard configuration.origins.permits(url.source) else {
                throw ServeError(403, "the source is under no origin this server fetches from (--origin)")
            }
            (real, identity) = ("", "origin:" + url.source)
        } else {
            (real, fileSize, identity) = try localSource(url.source)
        }
        let (pipeline, save) = try Self.servedPipeline(url.pipeline, compiler: configuration.compiler)
        let (served, negotiated) = try Self.format(of: url, save: save, accept: accept)
        let format = served.format
        let etag = "\"" + Self.sha256(identity + "\n" + format.rawValue + "\n" + pipeline.text).prefix(32) + "\""
        scratchCount += 1
        let job = ServeJob(source: real, name: url.source, origin: url.isOrigin ? configuration.origins : nil, fileSize: fileSize, pipeline: pipeline, format: format,
                           loadOptions: configuration.loadOptions, timeout: configuration.timeout,
                           scratch: "\(scratch)/\(scratchCount).\(format.fileExtension)", memory: configuration.memory,
                           streamAboveBytes: configuration.streamAboveBytes)
        return (job, etag, negotiated)
    }

    /// The file `source` names under the root: its real path, its size, and its identity (device,
    /// inode, size and time) for entity tags.
    private func localSource(_ source: String) throws(ServeError) -> (real: String, size: Int, identity: String) {
        let full = configuration.root + "/" + source
        var status = stat()
        guard stat(full, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else { throw ServeError(404, "\(source): no such picture") }
        // A link may point anywhere: the file it names must lie under the root too.
        guard let resolved = ImageFile.realPath(full), resolved.hasPrefix(configuration.root + "/") else {
            throw ServeError(403, "\(source): lies outside the server's root")
        }
        return (resolved, Int(status.st_size), "\(status.st_dev):\(status.st_ino):\(status.st_size):\(status.st_mtim.tv_sec).\(status.st_mtim.tv_nsec)")
    }

    /// What an IIIF Image API address asks: a response at once (information, the base URI's
    /// redirect), or a picture to make, with its entity tag, headers and media type. The
    /// picture's size is read from its header here, on the loop, as `?explain` reads it.
    private func prepareIIIF(path: String, host: String?, accept: String?) throws(ServeError) -> IIIFAnswer {
        let request = try IIIFRequest(path: path)
        let (real, fileSize, identity) = try localSource(request.identifier)
        let version = request.version
        let base = "http://\(host ?? address)\(version.prefix)\(IIIFRequest.escaped(request.identifier))"
        let description: SourceDescription
        do {
            description = try Load().describe(in: RunContext(input: real, loadOptions: configuration.loadOptions))
        } catch {
            throw ServeJob.failure(error, name: request.identifier, stopped: false)
        }
        let picture = description.size
        switch request.kind {
        case .base:
            return .answer(Response(status: 303, contentType: "text/plain", body: [], headers: [("Location", base + "/info.json")]))
        case .info:
            // JSON-LD for a client that asks for it, else plain JSON (Image API 2.1 and 3.0 §5).
            let linkedData = accept?.contains("application/ld+json") ?? false
            let type = linkedData ? "application/ld+json;profile=\"\(version.context)\"" : "application/json"
            let text = IIIFInfo(id: base, size: picture, decodedSizes: description.reducedSizes, version: version).json.text + "\n"
            return .answer(Response(status: 200, contentType: type, body: Array(text.utf8),
                                    headers: [("Link", "<\(version.profileURI)>;rel=\"profile\""), ("Vary", "Accept"),
                                              ("Cache-Control", "public, max-age=\(configuration.maxAge)")]))
        case let .image(image):
            let (text, canonical) = try image.plan(for: picture)
            let (pipeline, _) = try Self.servedPipeline(text, compiler: configuration.compiler)
            let format = image.format.imageFormat
            scratchCount += 1
            let job = ServeJob(source: real, name: request.identifier, origin: nil, fileSize: fileSize, pipeline: pipeline, format: format,
                               loadOptions: configuration.loadOptions, timeout: configuration.timeout,
                               scratch: "\(scratch)/\(scratchCount).\(format.fileExtension)", memory: configuration.memory,
                               streamAboveBytes: configuration.streamAboveBytes)
            let etag = "\"" + Self.sha256(identity + "\n" + format.rawValue + "\n" + pipeline.text).prefix(32) + "\""
            let links = "<\(base)/\(canonical)>;rel=\"canonical\", <\(version.profileURI)>;rel=\"profile\""
            return .work(job, etag: etag, headers: [("Link", links)], contentType: image.format.mediaType)
        }
    }

    /// The address `path` (escapes decoded) read, once its signature is checked against the
    /// rest of it (with `signature`; nil: unsigned addresses are served).
    nonisolated static func address(_ path: String, signature: URLSignature?) throws(ServeError) -> ImageURL {
        let (given, signed) = try ImageURL.signed(path)
        if let signature, !signature.verifies(given, for: signed) {
            throw ServeError(403, "the signature does not match the address")
        }
        return try ImageURL(path: path)
    }

    /// An address's pipeline text compiled, and its save stage: refused when it would read or
    /// write anything but its source and its response.
    nonisolated static func servedPipeline(_ text: String, compiler: PipelineCompiler) throws(ServeError) -> (Pipeline, Save) {
        let pipeline: Pipeline
        do {
            pipeline = try compiler.compile(text, file: "pipeline")
        } catch {
            throw ServeError(400, error.description)
        }
        // The address says what to make, never what else to read or write.
        let reads = pipeline.stages.flatMap(\.filesRead)
        guard let load = pipeline.source as? Load, let save = pipeline.sink as? Save, load.path == nil, save.path == nil,
              pipeline.transforms.allSatisfy({ !($0 is Tee) }), reads.isEmpty else {
            throw ServeError(400, "a served pipeline reads only its source and writes only its response: no paths, tee or branch")
        }
        return (pipeline, save)
    }

    /// The response's format: the address's `@extension`, else the pipeline's `save format=`,
    /// else negotiated from `accept` (then `negotiated` is true, and the response varies by it).
    nonisolated static func format(of url: ImageURL, save: Save, accept: String?) throws(ServeError) -> (ServedFormat, negotiated: Bool) {
        if let asked = url.format { return (try ServedFormat(asked, in: "the address"), false) }
        if let asked = save.format { return (try ServedFormat(asked, in: "the pipeline's save format="), false) }
        let own = ImageFormat(fileName: url.source.split(separator: "?").first.map(String.init) ?? "")
        return (ServedFormat.negotiated(accept: AcceptHeader(accept), source: own), true)
    }

    /// Whether an `If-None-Match` header names `etag` (or is `*`): the response is then 304.
    nonisolated static func isNotModified(ifNoneMatch: String?, etag: String) -> Bool {
        guard let ifNoneMatch else { return false }
        return ifNoneMatch.split(separator: ",").map { String($0).trimmingSpaces() }.contains { $0 == etag || $0 == "*" }
    }

    /// Takes `Range` and `If-Range` out of a request's headers, so that libsoup answers with the
    /// whole body: it answers a Range itself from the body it is given, a multipart/byteranges
    /// body holding a copy of the picture per range (199 ranges of `0-`: 199 copies).
    nonisolated static func passOverRanges(_ requestHeaders: OpaquePointer?) {
        soup_message_headers_remove(requestHeaders, "Range")
        soup_message_headers_remove(requestHeaders, "If-Range")
    }

    /// `imagepipe explain --json` of a job, naming the source as the address does and no file
    /// of the server's.
    private func explanation(of job: ServeJob) -> Response {
        let context = job.context(input: job.source, options: job.loadOptions)
        do {
            let json = try ExplainCommand(registry: configuration.compiler.registry).explanation(of: job.pipeline, in: context).json
            let text = json.text.replacingAll(job.source, with: job.name).replacingAll(job.scratch, with: "response")
            return Response(status: 200, contentType: "application/json", body: Array((text + "\n").utf8))
        } catch {
            return .error(ServeJob.failure(error, name: job.name, stopped: false))
        }
    }

    private func respond(_ message: OpaquePointer, _ response: Response, method: String, path: String, started: ContinuousClock.Instant) {
        // A picture made for the request is answered whole, as image services answer (200, no
        // Accept-Ranges): a client that lost part of it asks again and gets it from a cache.
        Self.passOverRanges(soup_server_message_get_request_headers(message))
        let headers = soup_server_message_get_response_headers(message)
        soup_message_headers_replace(headers, "X-Content-Type-Options", "nosniff")
        for (name, value) in response.headers { soup_message_headers_replace(headers, name, value) }
        soup_server_message_set_status(message, response.status, nil)
        if response.status == 304 {
            soup_server_message_set_response(message, nil, SOUP_MEMORY_COPY, nil, 0)
        } else if method == "HEAD" {
            soup_message_headers_set_content_length(headers, goffset(response.body.count))
            soup_message_headers_replace(headers, "Content-Type", response.contentType)
        } else {
            response.body.withUnsafeBytes { buffer in
                soup_server_message_set_response(message, response.contentType, SOUP_MEMORY_COPY,
                                                 buffer.baseAddress?.assumingMemoryBound(to: CChar.self), gsize(buffer.count))
            }
            hold(response.body.count, for: message)
        }
        let seconds = Double((ContinuousClock.now - started).components.attoseconds) / 1e18 + Double((ContinuousClock.now - started).components.seconds)
        metrics.record(status: response.status, seconds: seconds, bytesOut: response.body.count)
        let line: JSONValue = .object([("method", .string(method)), ("path", .string(path)), ("status", .number(Double(response.status))),
                                       ("bytes", .number(Double(response.body.count))), ("ms", .number((seconds * 1000).rounded()))])
        Console.diagnostics(line.text)
    }

    /// Counts the `bytes` of the body just given to `message` in the memory budget until libsoup
    /// frees the message: it keeps the whole body until the client has taken the last byte (or
    /// its connection has ended), whatever the client's pace, so a client that does not read
    /// holds them for as long as its connection lasts.
    private func hold(_ bytes: Int, for message: OpaquePointer) {
        guard bytes > 0 else { return }
        configuration.memory?.hold(bytes)
        heldResponses += bytes
        let context = Unmanaged.passRetained(HeldResponse(server: UInt(bitPattern: Unmanaged.passUnretained(self).toOpaque()), bytes: bytes)).toOpaque()
        g_object_weak_ref(UnsafeMutableRawPointer(message).assumingMemoryBound(to: GObject.self), { context, _ in
            let held = Unmanaged<HeldResponse>.fromOpaque(context!).takeRetainedValue()
            MainActor.assumeIsolated {
                let server = Unmanaged<ServeServer>.fromOpaque(UnsafeRawPointer(bitPattern: held.server)!).takeUnretainedValue()
                server.configuration.memory?.letGo(held.bytes)
                server.heldResponses -= held.bytes
            }
        }, context)
    }

    /// What a held response's weak reference names: the server, and the bytes it counted.
    private final class HeldResponse {
        let server: UInt
        let bytes: Int
        init(server: UInt, bytes: Int) {
            self.server = server
            self.bytes = bytes
        }
    }

    /// Runs `body` on the loop's thread, from any thread.
    nonisolated private static func onLoop(_ server: UInt, _ body: @escaping @MainActor (ServeServer) -> Void) {
        // GLib hands the call to the loop's thread under locks of its own (futexes), which
        // ThreadSanitizer cannot see: it took what the worker made (the response) for a race
        // with the loop's reading it. Taking one lock on each side shows it the handover.
        let box = Unmanaged.passRetained(LoopCall(server: server, body: body)).toOpaque()
        loopHandover.withLock { $0 &+= 1 }
        // Ahead of the loop's I/O: under a flood of requests (each answered 503 at once), an idle
        // source would never run, and the pictures made would never be sent.
        g_idle_add_full(G_PRIORITY_HIGH, { context in
            _ = ServeServer.loopHandover.withLock { $0 }
            let call = Unmanaged<LoopCall>.fromOpaque(context!).takeRetainedValue()
            MainActor.assumeIsolated {
                call.body(Unmanaged<ServeServer>.fromOpaque(UnsafeRawPointer(bitPattern: call.server)!).takeUnretainedValue())
            }
            return 0
        }, box, nil)
    }

    private final class LoopCall: @unchecked Sendable {
        let server: UInt
        let body: @MainActor (ServeServer) -> Void
        init(server: UInt, body: @escaping @MainActor (ServeServer) -> Void) {
            self.server = server
            self.body = body
        }
    }

    /// SHA-256 of `text` in hexadecimal, by GLib.
    static func sha256(_ text: String) -> String {
        let hex = g_compute_checksum_for_string(G_CHECKSUM_SHA256, text, -1)!
        defer { g_free(hex) }
        return String(cString: hex)
    }
}
