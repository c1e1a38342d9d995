/// How an image is encoded. Defaults match what ImageMagick and libvips users expect.
public struct SaveOptions: Hashable, Sendable {
    /// JPEG and WebP quality, 0–100.
    public var quality: Int
    /// PNG zlib compression level, 0–9.
    public var compression: Int
    /// What JPEG output of an image with alpha is flattened onto (ImageMagick's `-flatten`
    /// default, white).
    public var background: Color

    public init(quality: Int = 90, compression: Int = 6, background: Color = .white) {
        self.quality = quality
        self.compression = compression
        self.background = background
    }
}
