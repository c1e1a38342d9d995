/// Which HTTP(S) sources `imagepipe serve` fetches: URLs under one of the `--origin` prefixes,
/// connected only to the kinds of address allowed (`OriginAddress`), through at most
/// `maxRedirects` redirects each under a prefix too, within `maxBytes` (`--max-input-bytes`).
struct OriginPolicy: Sendable {
    /// `http://` or `https://` prefixes a source URL must start with; none: no origin is served.
    var prefixes: [String] = []
    var allowsLoopback = false
    var allowsPrivate = false
    var allowsLinkLocal = false
    /// Redirects followed at most (imgproxy's `IMGPROXY_MAX_REDIRECTS`, 10).
    var maxRedirects = 10
    var maxBytes: Int?
    /// A PEM file of the certificate authorities `https://` origins are checked against
    /// (`--origin-ca`), in place of the system's; nil: the system's.
    var authorities: String?

    /// Whether `url` is an HTTP(S) URL under one of the prefixes.
    func permits(_ url: String) -> Bool {
        (url.hasPrefix("http://") || url.hasPrefix("https://")) && prefixes.contains { url.hasPrefix($0) }
    }

    /// Why a connection to an address of `kind` is refused, or nil when it is allowed.
    func refusal(of kind: OriginAddress) -> String? {
        switch kind {
        case .global: nil
        case .loopback: allowsLoopback ? nil : "\(kind.name) (--allow-loopback-origins allows it)"
        case .privateNetwork: allowsPrivate ? nil : "\(kind.name) (--allow-private-origins allows it)"
        case .linkLocal: allowsLinkLocal ? nil : "\(kind.name) (--allow-link-local-origins allows it)"
        case .unroutable: kind.name
        }
    }
}
