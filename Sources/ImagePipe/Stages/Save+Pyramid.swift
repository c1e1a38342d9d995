/// `save` writing a tile pyramid (docs/pyramids.md).
///
/// A pyramid is `save`'s, not a stage of its own: it is where a run's picture is written, named
/// by the path as a file is (`save photo.dzi`, the run's `-o`, an output template), with the
/// same atomic landing, the same refusal to replace the input, the same `quality` and
/// `background`; `format` names the tiles' format. Its own parameters (`layout`, `tile-size`,
/// `overlap`, `region-shrink`, `skip-blanks`, `container`, `iiif-id`) are read only when a
/// pyramid is written, and refused otherwise.
extension Save {
    /// The formats a pyramid's tiles are written in.
    static let tileFormats: [ImageFormat] = [.jpeg, .png, .webp, .avif]

    /// The layout this save writes `path` in: the one asked for, else Deep Zoom for a path
    /// ending in `.dzi`; nil for a single picture.
    func pyramidLayout(path: String) -> PyramidLayout? {
        if let layout = pyramid.layout { return layout }
        return PathBytes.splitExtension(PathBytes.lastComponent(path)).ext?.lowercased() == "dzi" ? .deepzoom : nil
    }

    /// Whether this save writes a pyramid in `context`.
    public func writesPyramid(in context: RunContext) -> Bool {
        guard let path = try? target(in: context).path else { return pyramid.layout != nil }
        return pyramidLayout(path: path) != nil
    }

    /// The options the encoders are given for `path`: a pyramid's tiles carry no metadata and
    /// are sRGB, as libvips' dzsave writes them (a viewer draws them side by side, untagged).
    func encoderOptions(writing path: String) -> SaveOptions {
        guard pyramidLayout(path: path) != nil else { return options }
        var tiles = options
        tiles.keep = .none
        tiles.profile = .none
        return tiles
    }

    /// The pyramid's levels and tiles for a picture of `size` (`layout` from `pyramidLayout`).
    func pyramidGeometry(_ layout: PyramidLayout, size: Size) -> PyramidGeometry {
        PyramidGeometry(layout: layout, size: size, tileSize: pyramid.tileSide(layout), overlap: pyramid.overlapPixels(layout))
    }

    /// Refuses pyramid settings that cannot be written: checked by `target`, once the path is known.
    func checkPyramid(path: String, format: ImageFormat) throws(StageError) {
        guard let layout = pyramidLayout(path: path) else {
            let given = [("tile-size", pyramid.tileSize != nil), ("overlap", pyramid.overlap != nil), ("skip-blanks", pyramid.skipBlanks != nil),
                         ("container", pyramid.container != nil), ("iiif-id", pyramid.iiifBase != nil), ("region-shrink", pyramid.shrink != .mean)]
            if let (name, _) = given.first(where: \.1) {
                throw StageError("\(name)= is for tile pyramids, and '\(path)' is written as one picture; give layout=deepzoom (or iiif, iiif3, zoomify, google), or a path ending in .dzi")
            }
            return
        }
        guard Self.tileFormats.contains(format) else {
            throw StageError("a pyramid's tiles are jpeg, png, webp or avif, not \(format.rawValue); give format=jpeg (the default), png, webp or avif")
        }
        let side = pyramid.tileSide(layout), overlap = pyramid.overlapPixels(layout)
        if layout != .deepzoom, overlap != 0 {
            throw StageError("overlap=\(overlap): only Deep Zoom's tiles overlap; \(layout.rawValue)'s tiles meet edge to edge (leave overlap out)")
        }
        if overlap > side {
            throw StageError("overlap=\(overlap) is more than the tile size (\(side)); a Deep Zoom overlap is a few pixels (1, the default)")
        }
    }

    /// One line for `imagepipe explain`: the layout, levels and tiles of the pyramid a picture
    /// of `size` makes; nil when this save writes a single picture.
    public func pyramidSummary(size: Size, in context: RunContext) -> String? {
        guard let (path, format) = try? target(in: context), let layout = pyramidLayout(path: path) else { return nil }
        let geometry = pyramidGeometry(layout, size: size)
        let target = PyramidTarget(path: path, layout: layout, container: pyramid.container)
        let overlap = geometry.overlap > 0 ? ", overlap \(geometry.overlap)" : ""
        let blanks = pyramid.blankThreshold(layout).map { ", blank tiles (within \($0)) left out" } ?? ""
        return "\(layout.rawValue) pyramid in a \(target.container.rawValue): \(geometry.levels.count) levels, \(geometry.tileCount) tiles of \(geometry.tileSize) px\(overlap), \(format.rawValue)\(blanks)"
    }

    /// Writes the pyramid of the rows `feed` hands to the function it is given, at `path` in
    /// `format` (`target`'s): atomically (`PyramidTarget`), the tiles encoded on every core.
    func writePyramid(at path: String, layout: PyramidLayout, format: ImageFormat, in context: RunContext,
                      feed: ((RowFeed) throws -> Void) throws -> Void) throws {
        let target = PyramidTarget(path: path, layout: layout, container: pyramid.container)
        let suffix = layout.suffix(for: format), tileOptions = encoderOptions(writing: path)
        if let root = context.outputDirectory { try ImageFile.createParentDirectories(of: path, within: root) }
        try target.write(gate: context.outputGate) { store in
            var made: (geometry: PyramidGeometry, written: Int, channels: Int)?
            try feed { rows in
                let geometry = pyramidGeometry(layout, size: rows.size)
                let encoder = TileEncoder(store: store, format: format, options: tileOptions, queued: TileEncoder.queue(for: geometry))
                let builder = PyramidBuilder(geometry: geometry, channels: rows.channels, shrink: pyramid.shrink,
                                             blankThreshold: pyramid.blankThreshold(layout), background: options.background,
                                             name: target.name, suffix: suffix) { try encoder.submit($0) }
                let built = Result { try builder.build(rows); try builder.finish() }
                try encoder.finish() // every tile handed over is done before the store goes
                try built.get()
                made = (geometry, encoder.written.withLock { $0 }, rows.channels)
            }
            guard let made else { throw ImageError(.interrupted, path: path, reason: "no rows came for the pyramid") }
            if let (file, text) = PyramidFiles.description(made.geometry, name: target.name, suffix: suffix, written: made.written,
                                                           iiifID: pyramid.iiifID) {
                try store.write(Array(text.utf8), at: file)
            }
            if layout == .google { // what viewers show for the tiles left out
                let side = made.geometry.tileSize, ink = Array([options.background.red, options.background.green, options.background.blue, 255].prefix(made.channels))
                let blank = PyramidTile(path: "blank.png", pixels: Array((0..<(side * side)).lazy.flatMap { _ in ink }), size: Size(side, side), channels: made.channels)
                try store.write(try TileEncoder.encode(blank, as: .png, options: tileOptions), at: blank.path)
            }
            // As a picture's write: a run stopped meanwhile writes nothing.
            try context.cancellation?.check(path: path)
        }
    }
}
