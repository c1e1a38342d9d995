/// The first frame of an animated GIF or WebP, as a file of its own, and how many frames there
/// were.
///
/// gdk-pixbuf's loaders decode every frame of an animation as it arrives, each as large as the
/// canvas: 544 bytes of WebP holding ten 16x16 frames on an 8000x8000 canvas made 2.7 GB and a
/// crash, even for a header read. ImagePipe works on still pictures, so it cuts the data after
/// the first frame before any loader sees it; the frame limit is then the pixel limit. A GIF
/// whose first frame has no pixels is refused here (the loader would assert, then say "Not
/// enough memory"), and where the first frame's data begins is kept for `GIFDataCheck`.
struct FirstFrame {
    /// The data to decode: the first frame alone, or the input as it was.
    var bytes: [UInt8]
    /// How many frames the input holds (1 for a still picture).
    var frameCount: Int
    /// A GIF's first frame: its size, where its LZW data begins (the code size byte) and where
    /// its descriptor is, in `bytes`; nil for other formats, or when no whole descriptor is found.
    var gifFrame: (width: Int, height: Int, data: Int, descriptor: Int)?
    /// An animated WebP's canvas and where its first frame sits on it, when the frame does not
    /// cover it all: the frame decodes alone and is then placed on a transparent canvas, as
    /// viewers, libvips and Pillow show it.
    var webpPlacement: (canvas: Size, x: Int, y: Int)?
    /// Why a GIF is cut short after its first frame (the file ends inside a later block), and
    /// the `fail=` level that refuses it; nil when it is not. The first frame decodes whole all
    /// the same, so its decoder cannot tell: a still run refuses a GIF whose file ends inside a
    /// later frame from `truncated`, as it refuses a cut AVIF sequence, and one that ends inside
    /// an extension block (a comment, XMP, the next frame's control block) from `warning`, as a
    /// WebP cut in its metadata.
    var gifCut: (level: FailOn, reason: String)?

    /// The input as it is, a still picture; `FirstFrame(gif:path:)` and `FirstFrame(webp:path:)`
    /// cut an animation's first frame out.
    init(still bytes: [UInt8]) {
        self.bytes = bytes
        frameCount = 1
    }
}
