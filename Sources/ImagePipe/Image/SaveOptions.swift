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
    /// JPEG Huffman tables made for the picture (a few percent smaller, lossless) rather than the
    /// standard ones; nil (`auto`) makes them while the DCT coefficients libjpeg keeps for that
    /// take at most `optimizeCodingLimit` bytes (`optimizesCoding(size:gray:quality:)`).
    public var optimizeCoding: Bool?

    /// `save lossless=`: WebP, AVIF and JPEG XL lossless coding; for a JPEG input, whether it is
    /// written from its own DCT coefficients (`Pipeline.losslessJPEG`), and whether the partial
    /// blocks that stop that may be trimmed (`LosslessMode.trim`).
    public var losslessMode: LosslessMode
    /// `losslessMode` as a flag: true requires lossless (`trim` too), nil (`auto`) does it when
    /// it can be done exactly (WebP, AVIF and JPEG XL: lossy), false never does.
    public var lossless: Bool? {
        get { losslessMode.flag }
        set { losslessMode = LosslessMode(flag: newValue) }
    }
    /// WebP's near-lossless mode: lossless coding of slightly adjusted pixels, by `quality`.
    public var nearLossless: Bool
    /// Encoder effort: WebP 0 (fastest) to 6 (smallest), JPEG XL 1 to 9; nil (`auto`) for the
    /// format's default (`effort(for:)`).
    public var effort: Int?
    /// WebP quality of the alpha channel, 0–100.
    public var alphaQuality: Int
    /// AVIF encoder speed, 0 (slowest, smallest) to 10 (fastest).
    public var speed: Int

    /// PNG written as a palette of at most `paletteColors` colors (libimagequant); nil (`auto`)
    /// when `colors` is given, as sharp's `colours` turns its palette on: a palette size asked
    /// for is never passed over in silence.
    public var palette: Bool?
    /// Palette size for palette PNG and GIF, 2–256; nil (`auto`) for 256.
    public var colors: Int?
    /// Whether a PNG is written as a palette.
    public var writesPalette: Bool { palette ?? (colors != nil) }
    /// The palette size of palette PNG and GIF.
    public var paletteColors: Int { colors ?? 256 }
    /// Floyd–Steinberg dithering of palette PNG and GIF, 0 (none) to 1 (full).
    public var dither: Double

    /// How TIFF strips or tiles are compressed.
    public var tiffCompression: TIFFCompression
    /// TIFF written in square tiles of this side (a multiple of 16, 16–4096); nil for strips.
    public var tile: Int?

    /// How many times an animation plays, 0 forever; nil (`auto`) as the input does.
    public var loop: Int? = nil
    /// Milliseconds every frame of an animation shows; nil (`auto`) each frame's own.
    public var delay: Int? = nil

    /// Which of the input's metadata to write.
    public var keep: MetadataKeep
    /// The color profile of the written pixels.
    public var profile: OutputProfile

    public init(quality: Int? = nil, compression: Int = 6, background: Color = .white, chroma: ChromaSubsampling = .auto,
                progressive: Bool = false, optimizeCoding: Bool? = nil, lossless: Bool? = nil, nearLossless: Bool = false,
                effort: Int? = nil, alphaQuality: Int = 100, speed: Int = 5, palette: Bool? = nil, colors: Int? = nil,
                dither: Double = 1, keep: MetadataKeep = .none, profile: OutputProfile = .auto,
                tiffCompression: TIFFCompression = .deflate, tile: Int? = nil) {
        self.quality = quality
        self.compression = compression
        self.background = background
        self.chroma = chroma
        self.progressive = progressive
        self.optimizeCoding = optimizeCoding
        self.losslessMode = LosslessMode(flag: lossless)
        self.nearLossless = nearLossless
        self.effort = effort
        self.alphaQuality = alphaQuality
        self.speed = speed
        self.palette = palette
        self.colors = colors
        self.dither = dither
        self.keep = keep
        self.profile = profile
        self.tiffCompression = tiffCompression
        self.tile = tile
    }

    /// The effort used for `format`: the one given, else the format's default (`Codec.defaultEffort`:
    /// WebP's 4, as sharp and libvips; JPEG XL's 7, as cjxl and libvips).
    public func effort(for format: ImageFormat) -> Int { effort ?? Codecs.of(format).defaultEffort }

    /// The quality used for `format`: the one given, else the format's default.
    public func quality(for format: ImageFormat) -> Int { quality ?? Self.defaultQuality(format) }

    /// The format's default quality (`Codec.defaultQuality`): JPEG and WebP 80, as sharp (why:
    /// docs/formats.md, "JPEG defaults" and "WebP defaults"), AVIF 50, as sharp and libvips.
    public static func defaultQuality(_ format: ImageFormat) -> Int { Codecs.of(format).defaultQuality }

    /// The most bytes of DCT coefficients libjpeg may keep to make Huffman tables for a picture
    /// when `optimizeCoding` is auto: 2 bytes a sample of every component as sampled, so 6 bytes
    /// a pixel at 4:4:4 (44 megapixels), 3 at 4:2:0 (89), 2 for gray (134). Past it the standard
    /// tables are used, a few percent larger, and memory no longer grows with the picture
    /// (ImageMagick decides by its memory limit the same way; libvips never makes them).
    public static let optimizeCodingLimit = 256 << 20

    /// Whether a JPEG of `size` (`gray`: one component) at `quality` is written with Huffman
    /// tables made for it.
    public func optimizesCoding(size: Size, gray: Bool, quality: Int) -> Bool {
        optimizeCoding ?? (coefficientBytes(size: size, gray: gray, quality: quality) <= Self.optimizeCodingLimit)
    }

    /// Bytes libjpeg holds of a `size` JPEG's coefficients while it makes Huffman tables for it
    /// (0 when it does not): the whole picture's, whatever else streams.
    public func heldCodingBytes(size: Size, gray: Bool, quality: Int) -> Int {
        optimizesCoding(size: size, gray: gray, quality: quality) ? coefficientBytes(size: size, gray: gray, quality: quality) : 0
    }

    /// Two bytes a sample: luma, then each chroma component as sampled.
    private func coefficientBytes(size: Size, gray: Bool, quality: Int) -> Int {
        let bytesPerPixel: Int = switch gray ? nil : chroma.resolved(quality: quality) {
        case nil: 2
        case .c444?: 6
        case .c422?: 4
        default: 3
        }
        return size.pixelCount * bytesPerPixel
    }
}
