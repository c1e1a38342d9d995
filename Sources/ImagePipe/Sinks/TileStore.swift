/// Where a pyramid's files are written as they are made: a folder (`FolderTileStore`) or one
/// ZIP (`ZipTileStore`). Tiles are encoded on several threads, so `write` may be called from any.
protocol TileStore: AnyObject, Sendable {
    /// Writes `bytes` as the file at `path`, relative to the pyramid's root (`/`-separated).
    func write(_ bytes: [UInt8], at path: String) throws
}
