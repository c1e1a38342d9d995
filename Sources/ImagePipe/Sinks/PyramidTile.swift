/// One tile, its pixels copied out of its level's band, on its way to the encoder.
struct PyramidTile: Sendable {
    /// Where it goes, relative to the pyramid's root.
    let path: String
    let pixels: [UInt8]
    let size: Size
    let channels: Int
}
