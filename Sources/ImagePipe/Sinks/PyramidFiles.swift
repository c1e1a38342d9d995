/// The names of a pyramid's tiles and the text of its description file, layout by layout, as
/// libvips' dzsave writes them (paths relative to the pyramid's root: the folder the `.dzi` is
/// in for Deep Zoom, the folder `NAME/` otherwise).
enum PyramidFiles {
    /// The path of tile (`column`, `row`) of the level at `index`.
    static func tilePath(_ geometry: PyramidGeometry, level index: Int, column: Int, row: Int, name: String, suffix: String) -> String {
        let number = geometry.levelNumber(index)
        switch geometry.layout {
        case .deepzoom:
            return "\(name)_files/\(number)/\(column)_\(row).\(suffix)"
        case .google:
            return "\(number)/\(row)/\(column).\(suffix)"
        case .zoomify:
            // Tiles are counted from the smallest level's, row by row; 256 to a folder.
            let before = geometry.levels.indices.dropFirst(index + 1).reduce(0) { total, smaller in
                let (across, down) = geometry.tiles(at: smaller)
                return total + across * down
            }
            let tile = before + row * geometry.tiles(at: index).across + column
            return "TileGroup\(tile / 256)/\(number)-\(column)-\(row).\(suffix)"
        case .iiif, .iiif3:
            // The region in full-size pixels (a level's tile covers 2^index times its side), cut at
            // the picture's edge; the size the tile is.
            let full = geometry.levels[0], scale = geometry.tileSize << index
            let left = column * scale, top = row * scale
            let region = "\(left),\(top),\(min(scale, full.width - left)),\(min(scale, full.height - top))"
            let level = geometry.levels[index]
            let width = min(geometry.tileSize, level.width - column * geometry.tileSize)
            let height = min(geometry.tileSize, level.height - row * geometry.tileSize)
            let size = geometry.layout == .iiif3 ? "\(width),\(height)" : "\(width),"
            return "\(region)/\(size)/0/default.\(suffix)"
        }
    }

    /// The description file viewers open first, with its path: the `.dzi`, `info.json` or
    /// `ImageProperties.xml`; nil for Google's layout, which has none. `written` is the number
    /// of tiles written (Zoomify's NUMTILES).
    static func description(_ geometry: PyramidGeometry, name: String, suffix: String, written: Int, iiifID: String) -> (path: String, text: String)? {
        let size = geometry.levels[0]
        switch geometry.layout {
        case .deepzoom:
            return ("\(name).dzi", """
                <?xml version="1.0" encoding="UTF-8"?>
                <Image xmlns="http://schemas.microsoft.com/deepzoom/2008"
                  Format="\(suffix)"
                  Overlap="\(geometry.overlap)"
                  TileSize="\(geometry.tileSize)"
                  >
                  <Size 
                    Height="\(size.height)"
                    Width="\(size.width)"
                  />
                </Image>

                """)
        case .zoomify:
            return ("ImageProperties.xml",
                    "<IMAGE_PROPERTIES WIDTH=\"\(size.width)\" HEIGHT=\"\(size.height)\" NUMTILES=\"\(written)\" NUMIMAGES=\"1\" VERSION=\"1.8\" TILESIZE=\"\(geometry.tileSize)\" />\n")
        case .iiif, .iiif3:
            // Every level's scale factor (libvips 8.14 leaves out the smallest level's, whose
            // tiles it writes all the same).
            let factors = geometry.levels.indices.map { "        \(1 << $0)" }.joined(separator: ",\n")
            let id = JSONValue.quote("\(iiifID)/\(name)")
            let head = geometry.layout == .iiif3
                ? """
                  "@context": "http://iiif.io/api/image/3/context.json",
                  "id": \(id),
                  "type": "ImageService3",
                  "profile": "level0",
                  "protocol": "http://iiif.io/api/image",
                """
                : """
                  "@context": "http://iiif.io/api/image/2/context.json",
                  "@id": \(id),
                  "profile": [
                    "http://iiif.io/api/image/2/level0.json",
                    {
                      "formats": [
                        "\(suffix)"
                      ],
                      "qualities": [
                        "default"
                      ]
                    }
                  ],
                  "protocol": "http://iiif.io/api/image",
                """
            return ("info.json", """
                {
                \(head)
                  "tiles": [
                    {
                      "scaleFactors": [
                \(factors)
                      ],
                      "width": \(geometry.tileSize)
                    }
                  ],
                  "width": \(size.width),
                  "height": \(size.height)
                }

                """)
        case .google:
            return nil
        }
    }
}
