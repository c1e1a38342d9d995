import ImagePipe

/// An address of the IIIF Image API under `/iiif/2/` (2.1) or `/iiif/3/` (3.0): `{identifier}`
/// (the base URI, redirected to its information), `{identifier}/info.json`, or an image request
/// `{identifier}/{region}/{size}/{rotation}/{quality}.{format}`.
///
/// The identifier is a path under the server's root; its slashes are written `%2F`, which
/// libsoup has decoded, as every escape, before the path is read here: the four parameters are
/// therefore taken from the end, and what comes before them is the identifier.
struct IIIFRequest: Equatable, Sendable {
    enum Kind: Equatable, Sendable {
        case base
        case info
        case image(IIIFImageRequest)
    }

    /// The version the address is under.
    let version: IIIFVersion
    /// The identifier: a path under the root.
    let identifier: String
    let kind: Kind

    /// `path`, its escapes decoded, starting with a version's prefix.
    init(path: String) throws(ServeError) {
        guard let version = IIIFVersion(path: path) else { throw ServeError(404, "no IIIF Image API address: they start /iiif/2/ or /iiif/3/") }
        self.version = version
        let segments = path.dropFirst(version.prefix.count).split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        let names: ArraySlice<String>
        if segments.count >= 5, segments[segments.count - 1].contains(".") {
            names = segments[..<(segments.count - 4)]
            kind = .image(try IIIFImageRequest(segments: Array(segments.suffix(4)), version: version))
        } else if segments.count >= 2, segments.last == "info.json" {
            names = segments.dropLast()
            kind = .info
        } else {
            names = segments[...]
            kind = .base
        }
        identifier = names.joined(separator: "/")
        guard !identifier.isEmpty else { throw ServeError(404, "no identifier: addresses are \(version.prefix)IDENTIFIER/info.json") }
        // Only a path under the root: no empty, `.` or `..` segment.
        for name in names where name.isEmpty || name == "." || name == ".." || name.utf8.contains(0) {
            throw ServeError(404, "\(identifier): no such picture")
        }
    }

    /// The identifier as a URL writes it: every byte but letters, digits and `-._~` escaped,
    /// slashes too.
    static func escaped(_ identifier: String) -> String {
        ImageURL.encode(identifier).replacingAll("/", with: "%2F")
    }
}
