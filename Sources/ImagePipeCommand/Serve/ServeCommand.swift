import CSoup
import ImagePipe
#if canImport(Glibc)
import Glibc
#endif

/// `imagepipe serve --root DIR …`: the pipelines as an image service over HTTP.
struct ServeCommand {
    let registry: Registry

    static let help = """
        usage: imagepipe serve --root DIR [--listen ADDR:PORT] (--key HEX --salt HEX | --unsigned)
                               [--signature-size N] [--workers N] [--queue N] [--max-age SECONDS]
                               [--max-connections N] [--client-timeout SECONDS] [--max-memory N]
                               [--origin URL]… [--origin-ca FILE] [--max-redirects N] [--allow-loopback-origins]
                               [--allow-private-origins] [--allow-link-local-origins]
                               [--iiif] [--scaling MODE] [--max-pixels N] [--max-input-bytes N] [--timeout SECONDS] …

        Serves the pictures under DIR through pipelines written in their addresses:

          GET /SIGNATURE/PIPELINE/SOURCE[@EXTENSION]

        PIPELINE is the pipeline's text in URL-safe base64 without padding (`-` for none),
        SOURCE a path under DIR or an http(s):// URL under an --origin, and @webp, @avif, @jpg, @png or @gif the format to answer in
        (no other: 400); without it the format is the best the request's Accept header takes by
        its weights (AVIF or WebP when named, then the source's own, then JPEG), with Vary:
        Accept. `imagepipe url` writes and signs addresses. A Range header is passed over: the
        picture is answered whole.

        SIGNATURE is imgproxy's: URL-safe base64 of HMAC-SHA256(KEY, SALT + "/PIPELINE/SOURCE…"),
        the path with its percent-escapes decoded, KEY and SALT given in hex; with
        --signature-size N only its first N bytes (8 to 32).
        --unsigned serves any signature segment: only for a server nobody else can reach.

        A picture is answered with its ETag (from the source file's identity, the pipeline and
        the format) and Cache-Control: public, max-age (default 31536000, a year, as imgproxy's);
        If-None-Match gets 304. Errors are JSON, {"status": N, "error": "..."}: 400 pipeline or format,
        403 signature or a source outside DIR (no `..`, links out of DIR refused), 404 no such
        source, 413 too large, 415 source format, 422 damaged picture, 503 with Retry-After when
        every worker is busy and the queue is full, when responses not yet taken by their clients
        hold the memory a picture needs (or the server is stopping), 504 time limit.
        A pipeline may not read or write other files: no paths in load, save or composite, no tee
        or branch.

        With --iiif, the IIIF Image API 3.0 and 2.1 (level 2) are served too, unsigned, as IIIF
        viewers ask (V: 3 or 2):
          GET /iiif/V/IDENTIFIER/info.json
          GET /iiif/V/IDENTIFIER/REGION/SIZE/ROTATION/QUALITY.FORMAT
        IDENTIFIER is a path under DIR with its slashes written %2F (docs/serving.md).

        ADDRESS?explain answers `imagepipe explain --json` of the work instead of the picture.
        GET /health answers {"status": "ok"} (503 while stopping); GET /metrics the counters in
        Prometheus' text format. Each request is logged on standard error as a JSON line.
        SIGTERM stops taking requests (503) and exits once those in flight are answered; SIGINT
        exits at once.

        Options:
        """ + "\n" + OptionTable.text(options)

    static let declaration = CommandDeclaration("serve", summary: "Serve the pictures of a folder over HTTP, through pipelines in their addresses",
                                                help: help, options: options) { try ServeCommand(registry: $0).main($1) }

    static let root = CommandOption("--root", value: "DIR", kind: .directory, help: "The folder the sources lie in (required)")
    static let listen = CommandOption("--listen", value: "ADDR:PORT",
                                      help: "Where to listen (default 127.0.0.1:8080; port 0: a free one, printed)") { try listenAddress($0) }
    static let key = CommandOption("--key", value: "HEX", help: keyAndSaltHelp)
    static let salt = CommandOption("--salt", value: "HEX", help: keyAndSaltHelp)
    private static let keyAndSaltHelp = """
        The signature's key and salt (else the variables IMAGEPIPE_KEY and
        IMAGEPIPE_SALT: a command line is visible to every process)
        """
    static let unsigned = CommandFlag("--unsigned", help: "Serve without signatures")
    static let signatureSize = CommandOption("--signature-size", value: "N", help: "Signature bytes, 8 to 32 (default 32)") { text in
        guard let size = Int(text), (8...32).contains(size) else { throw UsageError("--signature-size needs a number of bytes from 8 to 32, got '\(text)'") }
        return size
    }
    static let workers = CommandOption.wholeNumber("--workers", in: 1...256, help: "Pictures made at once (default: the number of cores)")
    static let queue = CommandOption.wholeNumber("--queue", in: 0...100_000, help: "Requests that may wait for a worker (default 4 × workers)")
    static let maxAge = CommandOption.wholeNumber("--max-age", value: "SECONDS", in: 0...315_360_000, help: "Cache-Control max-age of pictures (default 31536000)")
    static let maxMemory = LimitOptions.maxMemory.describing("""
        What the pictures being made may hold together, estimated from each
        header, and the responses not yet taken by their clients: a picture
        that does not fit beside other pictures waits, one that does not
        fit beside the responses is answered 503, one that could never fit
        413; K, M, G suffixes (default: 3/4 of the machine's memory, or of
        its control group's limit; 0 = no limit)
        """)
    static let maxConnections = CommandOption.wholeNumber("--max-connections", in: 1...1_000_000, help: """
        Open connections at most, counted from accept to close (default
        1000, fewer if the descriptor limit leaves no room); past it the
        oldest one waiting for a request is closed
        """)
    static let clientTimeout = CommandOption.wholeNumber("--client-timeout", value: "SECONDS", in: 1...3600, help: """
        How long a client may take to send a request, or to take its
        response (default 10); then its connection is closed. A slow
        client holds a connection, never a worker
        """)
    static let origin = CommandOption("--origin", value: "URL", help: """
        Fetch sources whose URL starts with URL (http:// or https://; may be
        given again). The addresses a source's name resolves to and each
        connection's are checked: loopback, private and link-local ones
        are refused (403) unless allowed below, as imgproxy refuses them
        """) { origin in
        guard origin.hasPrefix("http://") || origin.hasPrefix("https://"), origin.split(separator: "/", omittingEmptySubsequences: false).count > 2,
              !origin.split(separator: "/", omittingEmptySubsequences: false)[2].isEmpty else {
            throw UsageError("--origin needs an http:// or https:// URL with a host, like https://images.example.com/, got '\(origin)'")
        }
        // A bare host stands for everything on it, not for every host it begins another's name.
        return origin.split(separator: "/", omittingEmptySubsequences: false).count == 3 ? origin + "/" : origin
    }
    static let originAuthorities = CommandOption("--origin-ca", value: "FILE", kind: .file, help: """
        Check https:// origins' certificates against the authorities in
        FILE (PEM) instead of the system's, as for a private CA
        """) { text in
        guard let authorities = ImageFile.realPath(text), OriginFetch.certificateCount(in: authorities) > 0 else {
            throw UsageError("--origin-ca: '\(text)' is not a readable PEM file of certificates")
        }
        return authorities
    }
    static let maxRedirects = CommandOption.wholeNumber("--max-redirects", in: 0...100, help: """
        Redirects an origin may answer with, each checked the same way
        (default 10)
        """)
    static let iiif = CommandFlag("--iiif", help: """
        Serve the IIIF Image API 3.0 under /iiif/3/ and 2.1 under
        /iiif/2/, unsigned (region, size, rotation, quality and format
        in the address; the work bounded by the same limits)
        """)
    private static let privateOriginsHelp = """
        Let origins lie on the machine itself (127.0.0.0/8, ::1), on a
        private network (10/8, 172.16/12, 192.168/16, fc00::/7), or on a
        link-local one (169.254/16, fe80::/10)
        """
    static let allowLoopbackOrigins = CommandFlag("--allow-loopback-origins", help: privateOriginsHelp)
    static let allowPrivateOrigins = CommandFlag("--allow-private-origins", help: privateOriginsHelp)
    static let allowLinkLocalOrigins = CommandFlag("--allow-link-local-origins", help: privateOriginsHelp)

    static let options: [any OptionDeclaring] = [
        root, listen, key, salt, unsigned, signatureSize, workers, queue, maxAge, maxMemory, maxConnections, clientTimeout,
        origin, originAuthorities, maxRedirects, iiif, allowLoopbackOrigins, allowPrivateOrigins, allowLinkLocalOrigins,
    ] + PipelineArguments.decodeOptions + LimitOptions.options

    func main(_ arguments: [String]) throws -> Int32 {
        guard let parser = try OptionParser.parse(arguments, options: Self.options, help: Self.help) else { return 0 }
        guard parser.positionals.isEmpty else { throw UsageError("serve takes no file names: give the folder with --root DIR") }
        guard let rootText = parser.text(of: Self.root) else { throw UsageError("serve needs --root DIR, the folder of the pictures it serves") }
        var status = stat()
        guard let root = ImageFile.realPath(rootText), stat(root, &status) == 0, (status.st_mode & S_IFMT) == S_IFDIR else {
            throw UsageError("--root: '\(rootText)' is not a folder")
        }
        let signature = try Self.signature(parser)
        let (host, port) = try parser.value(of: Self.listen) ?? Self.listenAddress("127.0.0.1:8080")
        let workers = try parser.value(of: Self.workers) ?? max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
        let queue = try parser.value(of: Self.queue) ?? 4 * workers
        let maxAge = try parser.value(of: Self.maxAge) ?? 31_536_000
        let maxConnections = try parser.value(of: Self.maxConnections) ?? 1000
        let clientTimeout = try parser.value(of: Self.clientTimeout) ?? 10
        var memory: MemoryBudget? = MemoryBudget(limit: MemoryBudget.defaultLimit)
        if let bytes = try parser.value(of: Self.maxMemory) { memory = bytes == 0 ? nil : MemoryBudget(limit: bytes) }
        var loadOptions = try PipelineArguments.outputContext(parser).loadOptions
        try LimitOptions.apply(parser, to: &loadOptions)
        var origins = OriginPolicy(allowsLoopback: parser.has(Self.allowLoopbackOrigins), allowsPrivate: parser.has(Self.allowPrivateOrigins),
                                   allowsLinkLocal: parser.has(Self.allowLinkLocalOrigins),
                                   maxRedirects: try parser.value(of: Self.maxRedirects) ?? 10, maxBytes: loadOptions.maxInputBytes)
        origins.prefixes += try parser.values(of: Self.origin)
        if let authorities = try parser.value(of: Self.originAuthorities) { origins.authorities = authorities }
        var configuration = ServeServer.Configuration(root: root, signature: signature, workers: workers, queue: queue, loadOptions: loadOptions,
                                                      timeout: try LimitOptions.timeout(parser), maxAge: maxAge,
                                                      maxConnections: maxConnections, clientTimeoutMilliseconds: UInt32(clientTimeout * 1000), memory: memory,
                                                      compiler: PipelineCompiler(registry: registry))
        configuration.origins = origins
        configuration.iiif = parser.has(Self.iiif)
        Self.raiseDescriptorLimit()
        // glibc gives each thread that allocates its own heap (up to 8 a core), and a long-running
        // server's pictures, made on whichever worker thread, leave each heap fragmented: at 75
        // requests a second its resident memory went from 104 to 140 MiB in 150 s, against 45–69
        // MiB with no trend with two heaps (libvips' and imgproxy's advice, MALLOC_ARENA_MAX=2).
        if getenv("MALLOC_ARENA_MAX") == nil { mallopt(M_ARENA_MAX, 2) }
        // A picture's buffers are above glibc's first threshold for mapping memory of its own
        // (a 1280x800 decode is 3 MB; libjpeg holds a progressive 5120x2880 JPEG's coefficients,
        // 29 MB a plane at 4:4:4, to the end of its decode), and memory freed at a heap's top
        // goes back to the system: each request then faults its buffers in afresh and zeroes
        // them, a third of the CPU of such a request. Kept in the heaps (up to 32 MiB a buffer,
        // the most glibc keeps there; 128 MiB free at a heap's top before it gives any back,
        // three such planes) they cost none, until the timer below returns the free pages.
        if getenv("GLIBC_TUNABLES") == nil {
            mallopt(M_MMAP_THRESHOLD, 32 << 20)
            mallopt(M_TRIM_THRESHOLD, 128 << 20)
        }
        return try MainActor.assumeIsolated {
            let server = try ServeServer(configuration: configuration, listen: host, port: port)
            Console.error("serve: listening on \(server.address) (\(workers) workers, queue \(queue)\(signature == nil ? ", unsigned" : ""))")
            return server.run()
        }
    }

    /// Every connection is a descriptor, so the soft limit goes up to the hard one, as nginx's
    /// `worker_rlimit_nofile` and Go's runtime raise theirs: the common soft default of 1024
    /// would not hold `--max-connections`' 1000 beside the files being read.
    static func raiseDescriptorLimit() {
        let files = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
        var limit = rlimit()
        guard getrlimit(files, &limit) == 0, limit.rlim_cur < limit.rlim_max else { return }
        // Linux refuses more than its own cap (`fs.nr_open`, a million by default) even under an
        // unlimited hard limit.
        limit.rlim_cur = min(limit.rlim_max, 1 << 20)
        setrlimit(files, &limit)
    }

    /// The signature's key, salt and size, or nil with --unsigned.
    static func signature(_ parser: OptionParser) throws -> URLSignature? {
        let size = try parser.value(of: Self.signatureSize) ?? 32
        if parser.has(Self.unsigned) {
            guard !parser.has(Self.key), !parser.has(Self.salt) else { throw UsageError("--unsigned and --key/--salt exclude each other") }
            return nil
        }
        // From the environment too, so that a secret need not stand in a command line that every
        // process on the machine can read.
        func given(_ option: CommandOption<String>, _ variable: String) -> String? {
            parser.text(of: option) ?? getenv(variable).map { String(cString: $0) }
        }
        guard let keyText = given(Self.key, "IMAGEPIPE_KEY"), let saltText = given(Self.salt, "IMAGEPIPE_SALT") else {
            throw UsageError("give --key HEX and --salt HEX (or IMAGEPIPE_KEY and IMAGEPIPE_SALT) to sign addresses, as imgproxy's IMGPROXY_KEY and IMGPROXY_SALT, or --unsigned")
        }
        guard let key = URLSignature.bytes(hex: keyText) else { throw UsageError("--key needs an even number of hexadecimal digits") }
        guard let salt = URLSignature.bytes(hex: saltText) else { throw UsageError("--salt needs an even number of hexadecimal digits") }
        return URLSignature(key: key, salt: salt, size: size)
    }

    /// `ADDR:PORT`, `[IPv6]:PORT` or `:PORT` (all interfaces).
    static func listenAddress(_ text: String) throws -> (String, UInt32) {
        guard let colon = text.lastIndex(of: ":"), let port = UInt32(text[text.index(after: colon)...]), port <= 65_535 else {
            throw UsageError("--listen needs ADDR:PORT (like 127.0.0.1:8080 or :8080), got '\(text)'")
        }
        var host = String(text[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        return (host.isEmpty ? "0.0.0.0" : host, port)
    }
}
