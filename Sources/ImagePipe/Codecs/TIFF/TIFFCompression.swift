/// How `save` compresses a TIFF's strips or tiles.
public enum TIFFCompression: String, CaseIterable, Hashable, Sendable {
    /// The samples as they are: the largest files, read by everything.
    case none
    /// zlib's deflate with the horizontal predictor, at `compression`'s level: lossless and compact.
    case deflate
    /// LZW with the horizontal predictor: lossless, what older readers know.
    case lzw
    /// JPEG at `quality` (RGB as YCbCr 4:2:0): lossy and smallest for photos.
    case jpeg
}
