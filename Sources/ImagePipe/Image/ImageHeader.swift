/// What a picture file says about itself before any pixel is decoded.
public struct ImageHeader: Hashable, Sendable {
    /// The stored size, before EXIF orientation.
    public var storedSize: Size
    /// The format, told from the file's first bytes.
    public var format: ImageFormat
    /// The EXIF orientation, 1–8 (1 = as stored).
    public var orientation: Int
    /// How many frames an animated GIF or WebP holds.
    public var frameCount: Int
    /// The file the header was read from, kept open for its decoder (`Image.load`), so that
    /// each input is opened once; nil for a header read from memory or a stream.
    package var source: OpenedFile?
    /// Whether this file's decoder hands a streamed run its rows in order: its codec can
    /// (`CodecCapabilities.rowsInOrder`), and the file is not one the codec reads whole (a CMYK
    /// JPEG, an interlaced PNG, a WebP with alpha, an animation, a TIFF with alpha or in planes).
    /// What `explain`, the memory estimate and the run decide streaming by, before decoding.
    public var rowsInOrder: Bool
    /// Whether the rows it hands in order are RGBA (a PNG with alpha), else RGB.
    public var rowsHaveAlpha: Bool
    /// Whether its decoder can resample the picture as it decodes (a JPEG in planes it can
    /// filter: `LoadOptions.decodeResampling`).
    public var resamplesInPlanes = false
    /// A JPEG's DCT coefficients in bytes (every component's blocks, padded to whole MCUs, two
    /// bytes a coefficient): what a lossless turn or crop holds per copy. 0 for other formats.
    public var coefficientBytes = 0
    /// The smaller copies of the picture the file stores (a TIFF pyramid's levels), largest
    /// first, as stored (before the orientation's turn): a plan that only shrinks decodes the
    /// smallest that is still large enough.
    public var reducedLevels: [Size] = []
    /// Whether the picture's data come in scans of rising detail (a progressive JPEG): a decode
    /// at 1/8 of its size reads only the scans that size is made of.
    public var progressive = false

    /// How many pixels a side of a stored smaller level (a pyramid's, a JPEG's DCT size) may be
    /// off the exact fraction of the full size it stands for: writers round each halving down
    /// (libvips: 13564 rows → 3391 at 1/4, 1695 at 1/8, where 1/8 is 1695.5), readers and
    /// plans round up. The decoder's choice of a level and a service's list of fast sizes
    /// both take a level within it as that fraction.
    public static let levelRoundingSlack = 2
    /// The rows its decoder hands on at once, where the header says (a TIFF's strip or tile
    /// height); nil where the format's codec knows or only the decode does.
    public var bandRows: Int?

    public init(storedSize: Size, format: ImageFormat, orientation: Int = 1, frameCount: Int = 1, rowsInOrder: Bool = false,
                rowsHaveAlpha: Bool = false) {
        self.storedSize = storedSize
        self.format = format
        self.orientation = orientation
        self.frameCount = frameCount
        self.rowsInOrder = rowsInOrder
        self.rowsHaveAlpha = rowsHaveAlpha
    }

    /// Headers are equal when they say the same of the picture: the open file travels with a
    /// header, and how its decoder goes about it is not part of what it says.
    public static func == (a: ImageHeader, b: ImageHeader) -> Bool {
        a.storedSize == b.storedSize && a.format == b.format && a.orientation == b.orientation && a.frameCount == b.frameCount
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(storedSize)
        hasher.combine(format)
        hasher.combine(orientation)
        hasher.combine(frameCount)
    }

    /// `an animated GIF of 12 frames`; nil for a still picture.
    public var animationNote: String? {
        guard frameCount > 1 else { return nil }
        return "an animated \(format.displayName) of \(frameCount) frames"
    }

    /// Whether the orientation turns the picture a quarter (EXIF 5–8 swap width and height).
    public var swapsSides: Bool { (5...8).contains(orientation) }

    /// The size the picture has once decoded with the given options.
    public func decodedSize(applyingOrientation: Bool) -> Size {
        applyingOrientation && swapsSides ? storedSize.transposed : storedSize
    }

    /// Refuses a picture with more pixels than `limit` (nil or 0: no limit).
    public func checkPixels(limit: Int?, path: String?) throws(ImageError) {
        if let limit, limit > 0, storedSize.pixelCount > limit { throw .tooManyPixels(storedSize, limit: limit, path: path) }
    }

    /// Reads the header of a picture held in memory, refusing formats `options` does not allow.
    public static func read(bytes: [UInt8], options: LoadOptions = LoadOptions()) throws -> ImageHeader {
        try Codecs.header(of: bytes, options: options, path: nil)
    }

    /// Reads the header of the file at `path`: its format from the first bytes (refused unless
    /// `options` allows it), then the size from a reader for that format alone, fed only until it
    /// knows the size. Animations are read whole (within `maxInputBytes`) to count their frames;
    /// libtiff reads a TIFF's directory where it lies (libtiff writes it after the pixels). A
    /// regular file stays open in the header's `source`, for the decoder to go on from.
    public static func read(path: String, options: LoadOptions = LoadOptions()) throws -> ImageHeader {
        guard let file = try OpenedFile.open(path: path, limit: options.maxInputBytes) else {
            // A FIFO or device: read as its bytes come.
            return try read(path: path, options: options, file: nil) { body in
                try ImageFile.readChunks(path: path, limit: options.maxInputBytes, deadline: options.deadline, body)
            }
        }
        return try read(file: file, options: options)
    }

    /// Reads the header of the open regular `file`, which stays open in the header's `source`.
    static func read(file: OpenedFile, options: LoadOptions) throws -> ImageHeader {
        var header = try read(path: file.path, options: options, file: file) { body in try file.readChunks(deadline: options.deadline, body) }
        header.source = file
        return header
    }

    private static func read(path: String, options: LoadOptions, file: OpenedFile?,
                             chunks: (_ body: (UnsafeRawBufferPointer) throws -> Bool) throws -> Void) throws -> ImageHeader {
        var reader: (any HeaderReader)?
        try chunks { chunk in
            if reader == nil {
                let format = try ImageFormat.identify(chunk, allowed: options.allowedFormats, path: path)
                reader = try Codecs.of(format).headerReader(file: file, options: options, path: path)
            }
            return try reader!.take(chunk)
        }
        guard let reader else { throw ImageError(.corrupt, path: path, reason: "the file is empty") }
        return try reader.finished(path: path)
    }
}
