/// Makes a tile pyramid from rows that come top to bottom, never holding the picture: each
/// level keeps a band of a tile's side (and overlap) of rows (`PyramidBand`), writes its row of
/// tiles when the band is full, and halves every two rows into a row of the level below
/// (`PyramidShrink`), which does the same. Memory is about the picture's width × a tile's side
/// × 2 (the levels' widths add up to twice the picture's), whatever its height.
final class PyramidBuilder {
    let geometry: PyramidGeometry
    let channels: Int
    let shrink: PyramidShrink
    /// Tiles within this of `ink` on every byte are left out; nil writes them all.
    let blankThreshold: Int?
    /// The background, a pixel of `channels` bytes: blank tiles' color and Google's padding.
    let ink: [UInt8]
    let name: String
    let suffix: String
    private let bands: [PyramidBand]
    private let emit: (PyramidTile) throws -> Void

    init(geometry: PyramidGeometry, channels: Int, shrink: PyramidShrink, blankThreshold: Int?, background: Color, name: String,
         suffix: String, emit: @escaping (PyramidTile) throws -> Void) {
        self.geometry = geometry
        self.channels = channels
        self.shrink = shrink
        self.blankThreshold = blankThreshold
        ink = Array([background.red, background.green, background.blue, 255].prefix(channels))
        self.name = name
        self.suffix = suffix
        self.emit = emit
        let capacity = Self.bandRows(geometry)
        bands = geometry.levels.map { PyramidBand(size: $0, channels: channels, capacity: capacity) }
    }

    /// Rows a band holds at most: a tile's side and its overlap above and below.
    static func bandRows(_ geometry: PyramidGeometry) -> Int { geometry.tileSize + 2 * geometry.margin }

    /// Bytes a pyramid of `geometry` holds, for the streamed run's estimate: its levels' bands,
    /// and the tiles waiting for the encoders or being encoded (their pixels and their files).
    static func heldBytes(_ geometry: PyramidGeometry, channels: Int) -> Int {
        let side = geometry.tileSize + 2 * geometry.margin
        return geometry.levels.reduce(0) { $0 + PyramidBand.bytes(size: $1, channels: channels, capacity: bandRows(geometry)) }
            + TileEncoder.queue(for: geometry) * side * side * channels * 3 / 2
    }

    /// Takes every row of `rows` in order; throws when they stop coming.
    func build(_ rows: RowFeed) throws {
        precondition(rows.size == geometry.levels[0] && rows.channels == channels, "rows of another size than the pyramid's")
        for y in 0..<rows.size.height {
            guard let row = rows.row(y) else { throw rows.stopped() }
            try add(row, level: 0)
        }
    }

    /// Row `received` of the level at `index`: into its band, out as tiles when a row of them is
    /// whole, halved into the level below with the row above it.
    private func add(_ row: UnsafePointer<UInt8>, level index: Int) throws {
        let band = bands[index]
        let y = band.received
        band.pixels.withUnsafeMutableBytes { pixels in
            (pixels.baseAddress! + (y - band.top) * band.rowBytes).copyMemory(from: row, byteCount: band.rowBytes)
        }
        band.received += 1
        let down = geometry.tiles(at: index).down
        while band.nextTileRow < down, geometry.span(band.nextTileRow, length: band.height).end <= band.received {
            try writeTiles(row: band.nextTileRow, of: band, level: index)
            band.nextTileRow += 1
            if band.nextTileRow < down { band.drop(before: min(band.received, geometry.span(band.nextTileRow, length: band.height).start)) }
        }
        guard index + 1 < bands.count else { return }
        if y % 2 == 0, y + 1 < band.height {
            band.pair.withUnsafeMutableBytes { $0.baseAddress!.copyMemory(from: row, byteCount: band.rowBytes) }
            return
        }
        // An odd last row pairs with itself, as libvips repeats a level's last row to make it even.
        band.halved.withUnsafeMutableBufferPointer { out in
            band.pair.withUnsafeBufferPointer { pair in
                shrink.shrink(y % 2 == 0 ? row : pair.baseAddress!, row, width: band.width, channels: channels, into: out.baseAddress!)
            }
        }
        try band.halved.withUnsafeBufferPointer { try add($0.baseAddress!, level: index + 1) }
    }

    /// Every tile of row `row` of the level at `index`, from its band.
    private func writeTiles(row: Int, of band: PyramidBand, level index: Int) throws {
        let across = geometry.tiles(at: index).across
        let pad = geometry.layout == .google
        for column in 0..<across {
            let rect = geometry.tileRect(at: index, column: column, row: row)
            let outSize = pad ? Size(geometry.tileSize, geometry.tileSize) : Size(rect.width, rect.height)
            var tile = [UInt8](repeating: 0, count: outSize.width * outSize.height * channels)
            var blank = blankThreshold != nil
            band.pixels.withUnsafeBufferPointer { pixels in
                tile.withUnsafeMutableBufferPointer { out in
                    let lineBytes = rect.width * channels
                    for line in 0..<rect.height {
                        let source = pixels.baseAddress! + (rect.top + line - band.top) * band.rowBytes + rect.left * channels
                        (out.baseAddress! + line * outSize.width * channels).update(from: source, count: lineBytes)
                        if blank, let threshold = blankThreshold {
                            for x in 0..<lineBytes where abs(Int(source[x]) - Int(ink[x % channels])) > threshold {
                                blank = false
                                break
                            }
                        }
                    }
                    if pad { // Google's tiles are whole: the background beyond the picture
                        for line in 0..<outSize.height {
                            for x in (line < rect.height ? rect.width : 0)..<outSize.width {
                                for c in 0..<channels { out[(line * outSize.width + x) * channels + c] = ink[c] }
                            }
                        }
                    }
                }
            }
            if blank { continue }
            try emit(PyramidTile(path: PyramidFiles.tilePath(geometry, level: index, column: column, row: row, name: name, suffix: suffix),
                                 pixels: tile, size: outSize, channels: channels))
        }
    }

    /// Checks that every tile was written: every row came.
    func finish() throws {
        for (index, band) in bands.enumerated() where band.nextTileRow < geometry.tiles(at: index).down {
            throw ImageError(.interrupted, reason: "the rows stopped at \(band.received) of level \(geometry.levelNumber(index))'s \(band.height)")
        }
    }
}
