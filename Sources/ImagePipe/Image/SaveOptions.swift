/// How an image is encoded. Defaults follow sharp and libvips where they agree; each parameter's
/// help in `save` says where they do not and which was taken.
public struct SaveOptions: Hashable, Sendable {
    /// JPEG, WebP and AVIF quality, 1–100; nil for the format's default (`defaultQuality`).
    public var quality: Int?
    /// PNG zlib compression level, 0–9.
    public var compression: Int
    /// What output of an image with alpha is flattened onto when the format has no alpha
    /// (JPEG) (ImageMagick's `-flatten` default, white).
    public var background: Color

    /// JPEG and AVIF chroma subsampling.
    public var chroma: ChromaSubsampling
    /// Progressive JPEG (a coarse picture first, refined by later scans).
    public var progressive: Bool
    /// JPEG Huffman tables made for the picture (a few percent smaller, lossless) rather than the standard ones.
    public var optimizeCoding: Bool

    /// Lossless WebP and AVIF.
    public var lossless: Bool
    /// WebP's near-lossless mode: lossless coding of slightly adjusted pixels, by `quality`.
    public var nearLossless: Bool
    /// WebP encoder effort, 0 (fastest) to 6 (smallest).
    public var effort: Int
    /// WebP quality of the alpha channel, 0–100.
    public var alphaQuality: Int
    /// AVIF encoder speed, 0 (slowest, smallest) to 10 (fastest).
    public var speed: Int

    /// PNG written as a palette of at most `colors` colors (libimagequant).
    public var palette: Bool
    /// Palette size for palette PNG and GIF, 2–256.
    public var colors: Int
    /// Floyd–Steinberg dithering of palette PNG and GIF, 0 (none) to 1 (full).
    public var dither: Double

    /// Which of the input's metadata to write.
    public var keep: MetadataKeep
    /// The color profile of the written pixels.
    public var profile: OutputProfile

    public init(quality: Int? = nil, compression: Int = 6, background: Color = .white, chroma: ChromaSubsampling = .auto,
                progressive: Bool = false, optimizeCoding: Bool = true, lossless: Bool = false, nearLossless: Bool = false,
                effort: Int = 4, alphaQuality: Int = 100, speed: Int = 5, palette: Bool = false, colors: Int = 256,
                dither: Double = 1, keep: MetadataKeep = .none, profile: OutputProfile = .auto) {
        self.quality = quality
        self.compression = compression
        self.background = background
        self.chroma = chroma
        self.progressive = progressive
        self.optimizeCoding = optimizeCoding
        self.lossless = lossless
        self.nearLossless = nearLossless
        self.effort = effort
        self.alphaQuality = alphaQuality
        self.speed = speed
        self.palette = palette
        self.colors = colors
        self.dither = dither
        self.keep = keep
        self.profile = profile
    }

    /// The quality used for `format`: the one given, else the format's default.
    public func quality(for format: ImageFormat) -> Int { quality ?? Self.defaultQuality(format) }

    /// JPEG and WebP 90 (ImagePipe's own, kept from its first release: sharp takes 80, libvips
    /// 75); AVIF 50, as sharp and libvips (AV1's scale is not JPEG's: 50 looks like JPEG 80–90).
    public static func defaultQuality(_ format: ImageFormat) -> Int { format == .avif ? 50 : 90 }
}
