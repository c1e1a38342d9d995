/// The rows of one level that its next row of tiles needs: at most a tile's side and twice the
/// overlap, the rows above them dropped as each row of tiles is written. With the row kept to
/// pair with the next for the level below, it is all a level holds.
final class PyramidBand {
    let width: Int
    let height: Int
    let rowBytes: Int
    /// The band's rows, the first being row `top` of the level.
    var pixels: [UInt8]
    var top = 0
    /// Rows of the level received so far.
    var received = 0
    /// The next row of tiles to write.
    var nextTileRow = 0
    /// An even row waiting for the odd one below it, to be halved into the next level.
    var pair: [UInt8]
    /// The row made for the next level.
    var halved: [UInt8]

    init(size: Size, channels: Int, capacity: Int) {
        width = size.width
        height = size.height
        rowBytes = size.width * channels
        pixels = [UInt8](repeating: 0, count: rowBytes * min(capacity, size.height))
        pair = [UInt8](repeating: 0, count: rowBytes)
        halved = [UInt8](repeating: 0, count: ((size.width + 1) / 2) * channels)
    }

    /// Bytes a band of a level of `size` holds, for the streamed run's memory estimate.
    static func bytes(size: Size, channels: Int, capacity: Int) -> Int {
        size.width * channels * (min(capacity, size.height) + 1) + (size.width + 1) / 2 * channels
    }

    /// Keeps the rows from `row` on (moved to the front).
    func drop(before row: Int) {
        let kept = received - row
        guard row > top else { return }
        if kept > 0 {
            pixels.withUnsafeMutableBytes { band in
                let base = band.baseAddress!
                base.copyMemory(from: base + (row - top) * rowBytes, byteCount: kept * rowBytes)
            }
        }
        top = row
    }
}
