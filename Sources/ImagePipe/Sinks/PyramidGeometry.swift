/// The levels and tiles of a pyramid, worked out from the picture's size alone: what the
/// builder writes and what `imagepipe explain` tells.
///
/// Level sizes halve rounding up (a 5-pixel side becomes 3), as libvips' dzsave; the tiles of a
/// level start every `tileSize` pixels, and a Deep Zoom tile reaches `overlap` pixels past
/// each of its sides where the level has pixels there.
public struct PyramidGeometry: Hashable, Sendable {
    public let layout: PyramidLayout
    public let tileSize: Int
    public let overlap: Int
    /// Every level's size, the full picture first.
    public let levels: [Size]

    public init(layout: PyramidLayout, size: Size, tileSize: Int, overlap: Int) {
        self.layout = layout
        self.tileSize = tileSize
        self.overlap = overlap
        let limit = layout.endsAtOnePixel ? 1 : tileSize
        var levels = [size]
        var level = size
        while level.width > limit || level.height > limit {
            level = Size((level.width + 1) / 2, (level.height + 1) / 2)
            levels.append(level)
        }
        self.levels = levels
    }

    /// The layout's number for the level at `index` (0 the full picture): the smallest level is 0.
    public func levelNumber(_ index: Int) -> Int { levels.count - 1 - index }

    /// How far each tile reaches past its sides (Deep Zoom's overlap; the other layouts take none).
    var margin: Int { layout == .deepzoom ? overlap : 0 }

    /// Columns and rows of tiles at the level at `index`.
    public func tiles(at index: Int) -> (across: Int, down: Int) {
        let size = levels[index]
        return ((size.width + tileSize - 1) / tileSize, (size.height + tileSize - 1) / tileSize)
    }

    /// Tiles in every level.
    public var tileCount: Int { levels.indices.reduce(0) { total, index in let (a, d) = tiles(at: index); return total + a * d } }

    /// The pixels of the level at `index` that tile (`column`, `row`) holds: `span` of the
    /// columns, then of the rows.
    func tileRect(at index: Int, column: Int, row: Int) -> (left: Int, top: Int, width: Int, height: Int) {
        let size = levels[index]
        let (left, right) = span(column, length: size.width)
        let (top, bottom) = span(row, length: size.height)
        return (left, top, right - left, bottom - top)
    }

    /// Where tile `number` starts and ends along a side of `length` pixels.
    func span(_ number: Int, length: Int) -> (start: Int, end: Int) {
        (max(0, number * tileSize - margin), min(length, (number + 1) * tileSize + margin))
    }
}
