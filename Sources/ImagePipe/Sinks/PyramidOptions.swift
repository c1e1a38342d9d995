/// How `save` writes a tile pyramid: `save`'s parameters that only pyramids read. Each nil
/// value is the layout's own default (`PyramidLayout`), as libvips' dzsave chooses it.
public struct PyramidOptions: Hashable, Sendable {
    /// The layout; nil writes Deep Zoom for a path ending in `.dzi` and no pyramid otherwise.
    public var layout: PyramidLayout?
    /// The side of a tile in pixels.
    public var tileSize: Int?
    /// Pixels a Deep Zoom tile shares with each neighbour.
    public var overlap: Int?
    /// How a level is halved into the next.
    public var shrink: PyramidShrink = .mean
    /// Tiles whose every byte is within this of the background are not written; nil asks the
    /// layout (Google: 5), -1 writes every tile.
    public var skipBlanks: Int?
    /// A folder or a ZIP; nil takes a ZIP for a path ending in `.zip`, a folder otherwise.
    public var container: PyramidContainer?
    /// The IIIF `id` the pyramid will be served under, without its name.
    public var iiifBase: String?

    public init() {}

    /// The most pixels a tile may have on a side: libvips' limit.
    public static let tileSizes = 1...8192

    /// The tile side in effect.
    func tileSide(_ layout: PyramidLayout) -> Int { tileSize ?? layout.defaultTileSize }

    /// The overlap in effect.
    func overlapPixels(_ layout: PyramidLayout) -> Int { overlap ?? layout.defaultOverlap }

    /// The blank threshold in effect; nil writes every tile.
    func blankThreshold(_ layout: PyramidLayout) -> Int? {
        switch skipBlanks {
        case nil: layout.defaultSkipBlanks
        case let given?: given < 0 ? nil : given
        }
    }

    /// The IIIF `id` base in effect (libvips' placeholder when none is given).
    var iiifID: String { iiifBase ?? "https://example.com/iiif" }
}
