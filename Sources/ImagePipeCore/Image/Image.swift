import CGdkPixbuf

/// A picture in memory: owns one GdkPixbuf, 8 bits per channel, RGB or RGBA with straight alpha.
///
/// An `Image` is never written after it is made, which is what makes it safe to share between
/// threads (`@unchecked Sendable`): stages read it and build new images with `make`.
public final class Image: @unchecked Sendable {
    package let pixbuf: OpaquePointer
    @usableFromInline package let pixels: UnsafePointer<UInt8>
    public let size: Size
    public let hasAlpha: Bool
    /// 3 (RGB) or 4 (RGBA).
    public let channelCount: Int
    /// Bytes from one row to the next; rows may be padded.
    public let rowStride: Int
    /// The color profile, EXIF and XMP the picture came with, for `save` to keep or drop.
    /// Stages make images without it; the pipeline carries it on from the decoded picture.
    public let metadata: ImageMetadata

    /// Takes over one reference to `pixbuf`.
    package init(adopting pixbuf: OpaquePointer, metadata: ImageMetadata = ImageMetadata()) {
        self.pixbuf = pixbuf
        self.metadata = metadata
        size = Size(Int(gdk_pixbuf_get_width(pixbuf)), Int(gdk_pixbuf_get_height(pixbuf)))
        hasAlpha = gdk_pixbuf_get_has_alpha(pixbuf) != 0
        channelCount = Int(gdk_pixbuf_get_n_channels(pixbuf))
        rowStride = Int(gdk_pixbuf_get_rowstride(pixbuf))
        pixels = UnsafePointer(gdk_pixbuf_read_pixels(pixbuf))
    }

    /// Shares a GdkPixbuf someone else holds (takes a reference of its own), for pictures that
    /// cross the plugin interface.
    package convenience init(retaining pixbuf: OpaquePointer) {
        g_object_ref(UnsafeMutableRawPointer(pixbuf))
        self.init(adopting: pixbuf)
    }

    /// An RGB (or RGBA) picture over rows someone else owns and keeps alive (and unchanged) while it is
    /// used: a strip of the streamed run's decode, shown to the stages without a copy.
    package static func viewing(rows: UnsafeMutablePointer<UInt8>, size: Size, rowStride: Int, hasAlpha: Bool = false) throws -> Image {
        guard let pixbuf = gdk_pixbuf_new_from_data(rows, GDK_COLORSPACE_RGB, hasAlpha ? 1 : 0, 8, Int32(size.width), Int32(size.height),
                                                    Int32(rowStride), nil, nil) else {
            throw ImageError(.tooLarge, reason: "cannot show \(size) rows as a picture")
        }
        return Image(adopting: pixbuf)
    }

    /// The same pixels (shared, not copied) with other metadata.
    public func withMetadata(_ metadata: ImageMetadata) -> Image {
        Image(adopting: retainedPixbuf(), metadata: metadata)
    }

    /// The GdkPixbuf behind the image, with a new reference for the caller to release.
    package func retainedPixbuf() -> OpaquePointer {
        g_object_ref(UnsafeMutableRawPointer(pixbuf))
        return pixbuf
    }

    deinit { g_object_unref(UnsafeMutableRawPointer(pixbuf)) }

    public var width: Int { size.width }
    public var height: Int { size.height }

    /// The bytes of row `y`: `width × channelCount` of them, RGB(A) interleaved.
    @inlinable public func row(_ y: Int) -> UnsafeBufferPointer<UInt8> {
        precondition(y >= 0 && y < height, "row \(y) outside 0..<\(height)")
        return UnsafeBufferPointer(start: rowStart(y), count: width * channelCount)
    }

    @usableFromInline package func rowStart(_ y: Int) -> UnsafePointer<UInt8> { pixels + y * rowStride }

    /// One pixel; opaque when the image has no alpha. For probes and tests, not for loops.
    public func pixel(x: Int, y: Int) -> Color {
        precondition(x >= 0 && x < width, "column \(x) outside 0..<\(width)")
        let bytes = row(y)
        let start = x * channelCount
        return Color(red: bytes[start], green: bytes[start + 1], blue: bytes[start + 2],
                     alpha: hasAlpha ? bytes[start + 3] : 255)
    }

    /// Builds a new image, letting `write` fill every row. Throws `tooLarge` when the pixels
    /// cannot be allocated.
    public static func make(size: Size, hasAlpha: Bool, write: (PixelWriter) throws -> Void) throws -> Image {
        let pixbuf = try allocate(size: size, hasAlpha: hasAlpha)
        let writer = PixelWriter(
            base: gdk_pixbuf_get_pixels(pixbuf), rowStride: Int(gdk_pixbuf_get_rowstride(pixbuf)),
            size: size, channelCount: hasAlpha ? 4 : 3)
        do {
            try write(writer)
        } catch {
            g_object_unref(UnsafeMutableRawPointer(pixbuf))
            throw error
        }
        return Image(adopting: pixbuf)
    }

    /// A new image of one color. The image has alpha unless the color is opaque and
    /// `hasAlpha` is false.
    public static func filled(_ color: Color, size: Size, hasAlpha: Bool? = nil) throws -> Image {
        let pixbuf = try allocate(size: size, hasAlpha: hasAlpha ?? !color.isOpaque)
        let rgba = UInt32(color.red) << 24 | UInt32(color.green) << 16 | UInt32(color.blue) << 8 | UInt32(color.alpha)
        gdk_pixbuf_fill(pixbuf, rgba)
        return Image(adopting: pixbuf)
    }

    private static func allocate(size: Size, hasAlpha: Bool) throws -> OpaquePointer {
        guard size.width > 0, size.height > 0, size.width <= Int(Int32.max), size.height <= Int(Int32.max) else {
            throw ImageError(.tooLarge, reason: "cannot make a \(size) image")
        }
        guard let pixbuf = gdk_pixbuf_new(GDK_COLORSPACE_RGB, hasAlpha ? 1 : 0, 8,
                                          Int32(size.width), Int32(size.height)) else {
            throw ImageError(.tooLarge, reason: "not enough memory for a \(size) image")
        }
        return pixbuf
    }
}
