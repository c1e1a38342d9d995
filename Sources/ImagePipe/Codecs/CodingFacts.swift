/// How a picture file is coded, as `vipsheader -a` and `identify -verbose` tell it: channels,
/// alpha, bits per sample, color space, JPEG quality and chroma subsampling, interlacing,
/// resolution, and an animation's frames, delays and loop count. Read from the file's own
/// headers (JPEG markers up to the first scan, PNG chunks, GIF blocks, RIFF chunks), never by
/// decoding; a fact the format does not state is nil.
public struct CodingFacts: Sendable {
    /// Channels as stored: 1 gray, 2 gray and alpha, 3 color, 4 color and alpha (or CMYK).
    public var channels: Int?
    public var hasAlpha: Bool?
    /// Bits per sample (a palette's index bits for GIF and palette PNG).
    public var bitDepth: Int?
    /// `YCbCr`, `RGB`, `gray`, `CMYK`, `YCCK`, `palette`.
    public var colorSpace: String?
    /// The JPEG quality (1–100) whose standard tables are nearest the file's luma table: exact
    /// for files from libjpeg and its kin, an estimate for a camera's own tables.
    public var jpegQuality: Int?
    /// JPEG chroma subsampling: `4:4:4`, `4:2:2`, `4:2:0`, `4:4:0`, `4:1:1`.
    public var chroma: String?
    /// Progressive JPEG, interlaced PNG (Adam7) or GIF.
    public var interlaced: Bool?
    /// WebP: lossless (VP8L) or lossy (VP8).
    public var lossless: Bool?
    /// Pixels per inch across and down, as stored (JFIF density, PNG pHYs).
    public var dpi: (x: Double, y: Double)?
    /// Each frame's delay in milliseconds, for an animation.
    public var delays: [Int] = []
    /// How many times an animation plays; 0 forever, nil when the file does not say.
    public var plays: Int?
    /// PNG color chunks present: `sRGB`, `gAMA 0.45455`, `cHRM`, `iCCP`, `cICP`.
    public var colorChunks: [String] = []

    public init() {}

    /// The facts of a file of `format` held in `bytes`, by its codec; empty for formats read otherwise.
    public static func read(_ bytes: [UInt8], format: ImageFormat) -> CodingFacts { Codecs.of(format).codingFacts(of: bytes) }

    static func big32(_ bytes: [UInt8], _ at: Int) -> UInt32 {
        UInt32(bytes[at]) << 24 | UInt32(bytes[at + 1]) << 16 | UInt32(bytes[at + 2]) << 8 | UInt32(bytes[at + 3])
    }

    static func little(_ bytes: [UInt8], _ at: Int, _ count: Int) -> Int {
        (0..<count).reduce(0) { $0 | Int(bytes[at + $1]) << (8 * $1) }
    }
}
