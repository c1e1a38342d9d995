/// The ways a tile pyramid is laid out in files: those libvips' `dzsave` writes and deep-zoom
/// viewers read. Each level halves the one above (rounding up); the tiles of a level are
/// numbered from the top left.
public enum PyramidLayout: String, CaseIterable, Hashable, Sendable {
    /// Microsoft's Deep Zoom (OpenSeadragon's own): `NAME.dzi` beside `NAME_files/LEVEL/COL_ROW.jpeg`,
    /// levels numbered from 0, the 1×1 picture, up to the full size.
    case deepzoom
    /// IIIF Image API 2 level-0 static tiles: `NAME/info.json` and
    /// `NAME/{x},{y},{w},{h}/{w},/0/default.jpg`, regions in full-size pixels.
    case iiif
    /// The same for IIIF Image API 3: sizes written `{w},{h}`, `info.json` of an ImageService3.
    case iiif3
    /// Zoomify: `NAME/ImageProperties.xml` and `NAME/TileGroupN/LEVEL-COL-ROW.jpg`, 256 tiles a
    /// group, counted from the smallest level.
    case zoomify
    /// Google Maps (and Leaflet's): `NAME/LEVEL/ROW/COL.jpg`, every tile padded to the tile size
    /// with the background, and `NAME/blank.png` for the tiles left out as blank.
    case google

    /// The tile side when none is given: libvips' (254 with a 1-pixel overlap makes Deep Zoom's
    /// inner tiles 256 wide; IIIF servers differ, libvips takes 512).
    var defaultTileSize: Int {
        switch self {
        case .deepzoom: 254
        case .iiif, .iiif3: 512
        case .zoomify, .google: 256
        }
    }

    /// The overlap when none is given: Deep Zoom's tiles share a pixel with each neighbour (what
    /// its viewers expect), the others none.
    var defaultOverlap: Int { self == .deepzoom ? 1 : 0 }

    /// Deep Zoom goes down to a 1×1 level; the others stop at the first level that fits in one tile.
    var endsAtOnePixel: Bool { self == .deepzoom }

    /// How close to the background, per channel, a tile may be and still be left out, when not
    /// asked: Google's layout leaves out tiles within 5 (its viewers show `blank.png`), the others
    /// write every tile (as libvips).
    var defaultSkipBlanks: Int? { self == .google ? 5 : nil }

    /// The tiles' file extension (without the dot): Deep Zoom names the format as libvips does
    /// (`jpeg`, which its `.dzi` also says); IIIF, Zoomify and Google viewers ask for `jpg`.
    func suffix(for format: ImageFormat) -> String {
        self == .deepzoom ? format.rawValue : format.fileExtension
    }

    /// The name of a file or folder that only a pyramid of this layout has at its root: what
    /// tells a pyramid that may be replaced from a folder that must not be.
    var marker: String {
        switch self {
        case .deepzoom: "" // a `.dzi` beside the `_files` folder
        case .iiif, .iiif3: "info.json"
        case .zoomify: "ImageProperties.xml"
        case .google: "blank.png"
        }
    }
}
