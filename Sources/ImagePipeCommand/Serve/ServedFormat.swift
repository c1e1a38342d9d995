import ImagePipe

/// A format `imagepipe serve` answers in: JPEG, PNG, WebP, AVIF or GIF, the web's picture
/// formats and the ones docs/serving.md promises. ImagePipe writes TIFF, BMP, ICO and JPEG XL too, but
/// browsers show none of them inline (JPEG XL only Safari, ICO only as a site's icon), so an address (its
/// `@extension`, imgproxy's `f:`, or `save format=` in its pipeline) that asks for one is
/// refused (400) rather than answered with a body no client of an image service expects.
struct ServedFormat: Sendable, Equatable {
    let format: ImageFormat

    /// Every served format, in the server's order of preference where `Accept` allows several
    /// (AVIF and WebP first: smaller for the same look).
    static let all: [ServedFormat] = [.init(unchecked: .avif), .init(unchecked: .webp), .init(unchecked: .jpeg),
                                      .init(unchecked: .png), .init(unchecked: .gif)]

    /// The extensions an address may name, for messages.
    static let names = "jpg, png, webp, avif or gif"

    private init(unchecked format: ImageFormat) { self.format = format }

    /// `format` when it is served; nil otherwise.
    init?(_ format: ImageFormat) {
        guard Self.all.contains(where: { $0.format == format }) else { return nil }
        self.format = format
    }

    /// The format an extension (`webp`, `jpg`…) names, refused with a 400 when it names no
    /// format or one the server does not answer in; `what` says where the name was read.
    init(named name: String, in what: String) throws(ServeError) {
        guard let format = ImageFormat(outputName: name) else {
            throw ServeError(400, "\(what) names no picture format; the server answers in \(Self.names)")
        }
        try self.init(format, in: what)
    }

    /// `format`, refused with a 400 when the server does not answer in it.
    init(_ format: ImageFormat, in what: String) throws(ServeError) {
        guard let served = ServedFormat(format) else {
            throw ServeError(400, "\(what) asks for \(format.rawValue.uppercased()), which this server does not answer in; it answers in \(Self.names)")
        }
        self = served
    }

    /// The response's Content-Type (RFC 9110 media types as IANA registers them), as the
    /// format's codec declares it: every served format has one.
    var mediaType: String { format.mediaType ?? "application/octet-stream" }

    /// The format for a request without a named format: the best the client's `Accept` header
    /// takes (`AcceptHeader.best`) of AVIF and WebP, which it must name (clients that send
    /// `*/*` or `image/*`, as curl and older browsers do, may not decode them), the source's own
    /// format when it is a served one, and JPEG, which any client of an image service decodes;
    /// when it takes none of them, the source's own or JPEG all the same (RFC 9110 §12.5.1
    /// allows a server to disregard an `Accept` it cannot satisfy, as image services do).
    static func negotiated(accept: AcceptHeader, source: ImageFormat?) -> ServedFormat {
        let own = source.flatMap(ServedFormat.init) ?? ServedFormat(unchecked: .jpeg)
        var candidates: [(ServedFormat, Double)] = []
        for modern in [ServedFormat(unchecked: .avif), ServedFormat(unchecked: .webp)] {
            candidates.append((modern, accept.quality(of: modern.mediaType, wildcards: false)))
        }
        candidates.append((own, accept.quality(of: own.mediaType, wildcards: true)))
        candidates.append((ServedFormat(unchecked: .jpeg), accept.quality(of: "image/jpeg", wildcards: true)))
        // The highest weight wins; of equal weights, the first in the server's order.
        var best: (ServedFormat, Double)?
        for candidate in candidates where candidate.1 > 0 && candidate.1 > (best?.1 ?? 0) { best = candidate }
        return best?.0 ?? own
    }
}
