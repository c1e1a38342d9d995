import Dispatch

/// Encodes tiles on the system's threads and writes them to the store, while the rows that make
/// the next tiles go on coming: a pyramid's time is mostly its tiles' encoding, which this
/// spreads over every core. At most `queued` tiles wait at a time, so memory stays a few
/// tiles whatever the picture's size. Encoding a tile never waits on anything else, so
/// Dispatch's pool serves (unlike the decoder, `WorkerThread` says why).
final class TileEncoder: @unchecked Sendable {
    private let store: any TileStore
    private let format: ImageFormat
    private let options: SaveOptions
    private let room: DispatchSemaphore
    private let group = DispatchGroup()
    private let failure = Locked<(any Error)?>(nil)
    /// Tiles written.
    let written = Locked(0)

    init(store: any TileStore, format: ImageFormat, options: SaveOptions, queued: Int) {
        self.store = store
        self.format = format
        self.options = options
        room = DispatchSemaphore(value: max(1, queued))
    }

    /// Tiles waiting at most for a pyramid of `geometry`: a whole row of the full size's tiles
    /// and two a core. With fewer, the rows' maker waits for the encoders at each row of tiles,
    /// the decoder waits for it, and the encoders then wait for the next row: on a 200 MP JPEG,
    /// 4 tiles at most used 35 % of two cores.
    static func queue(for geometry: PyramidGeometry) -> Int { geometry.tiles(at: 0).across + 2 * System.coreCount }

    /// Hands `tile` to a thread; throws an earlier tile's failure.
    func submit(_ tile: PyramidTile) throws {
        if let error = failure.withLock({ $0 }) { throw error }
        room.wait()
        group.enter()
        DispatchQueue.global().async { [self] in
            defer {
                room.signal()
                group.leave()
            }
            guard failure.withLock({ $0 }) == nil else { return }
            do {
                try store.write(try encode(tile), at: tile.path)
                written.withLock { $0 += 1 }
            } catch {
                failure.withLock { if $0 == nil { $0 = error } }
            }
        }
    }

    /// Waits for every tile handed over; throws the first failure.
    func finish() throws {
        group.wait()
        if let error = failure.withLock({ $0 }) { throw error }
    }

    /// The tile's file.
    func encode(_ tile: PyramidTile) throws -> [UInt8] { try Self.encode(tile, as: format, options: options) }

    /// `tile`'s file in `format`.
    static func encode(_ tile: PyramidTile, as format: ImageFormat, options: SaveOptions) throws -> [UInt8] {
        var pixels = tile.pixels
        return try pixels.withUnsafeMutableBufferPointer { buffer in
            let image = try Image.viewing(rows: buffer.baseAddress!, size: tile.size, rowStride: tile.size.width * tile.channels,
                                          hasAlpha: tile.channels == 4)
            return try image.encoded(as: format, options: options)
        }
    }
}
