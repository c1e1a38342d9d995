/// The versions of the IIIF Image API served: 2.1 under `/iiif/2/` and 3.0 under `/iiif/3/`,
/// each at level 2. They read the region, rotation, quality and format alike, and make the same
/// pipeline of them; they differ in the size (2.1 knows `full` beside `max` and no `^`: any size
/// may be larger than the region, its `sizeAboveFull`), in the size's canonical form and in
/// the information document.
enum IIIFVersion: String, Sendable, CaseIterable {
    case v2 = "2", v3 = "3"

    /// The version whose addresses `path` is under, or nil.
    init?(path: String) {
        guard let version = Self.allCases.first(where: { path.hasPrefix($0.prefix) }) else { return nil }
        self = version
    }

    /// Where the version's addresses start: `/iiif/2/`, `/iiif/3/`.
    var prefix: String { "/iiif/\(rawValue)/" }

    /// The JSON-LD context of the information document, also the profile of its
    /// `application/ld+json` media type.
    var context: String { "http://iiif.io/api/image/\(rawValue)/context.json" }

    /// The level-2 compliance document, named by the `Link: …;rel="profile"` headers (and, in
    /// 2.1, first in the information's `profile`).
    var profileURI: String { "http://iiif.io/api/image/\(rawValue)/level2.json" }
}
