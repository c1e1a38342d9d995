import CGdkPixbuf

/// What a picture file says about itself before any pixel is decoded.
public struct ImageHeader: Hashable, Sendable {
    /// The stored size, before EXIF orientation.
    public var storedSize: Size
    /// The gdk-pixbuf loader's name for the format: `jpeg`, `png`, …
    public var format: String
    /// The EXIF orientation, 1–8 (1 = as stored).
    public var orientation: Int

    public init(storedSize: Size, format: String, orientation: Int = 1) {
        self.storedSize = storedSize
        self.format = format
        self.orientation = orientation
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

    /// Reads the header of a picture held in memory.
    public static func read(bytes: [UInt8]) throws -> ImageHeader {
        try PixbufDecoder.header(of: bytes)
    }

    /// Reads the header of the file at `path`.
    public static func read(path: String) throws -> ImageHeader {
        var width: Int32 = 0
        var height: Int32 = 0
        guard let format = gdk_pixbuf_get_file_info(path, &width, &height) else {
            throw ImageFile.readError(path: path)
        }
        guard width > 0, height > 0 else {
            throw ImageError(.corrupt, path: path, reason: "the header gives no size")
        }
        let namePointer = gdk_pixbuf_format_get_name(format)
        let name = namePointer.map { String(cString: $0) } ?? "unknown"
        g_free(namePointer)
        let orientation = name == "jpeg" ? (try? ExifOrientation.read(path: path)) ?? 1 : 1
        return ImageHeader(storedSize: Size(Int(width), Int(height)), format: name, orientation: orientation)
    }
}
