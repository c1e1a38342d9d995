import CGdkPixbuf

/// How `Image.scaled` filters: gdk-pixbuf's interpolation types.
public enum ScaleFilter: String, CaseIterable, Sendable {
    case nearest, tiles, bilinear, hyper

    var gdkType: GdkInterpType {
        switch self {
        case .nearest: GDK_INTERP_NEAREST
        case .tiles: GDK_INTERP_TILES
        case .bilinear: GDK_INTERP_BILINEAR
        case .hyper: GDK_INTERP_HYPER
        }
    }
}

extension Image {
    /// The image resampled to `newSize`. gdk-pixbuf weights colour by alpha itself, so the
    /// result has no dark fringes without premultiplying here.
    public func scaled(to newSize: Size, filter: ScaleFilter = .bilinear) throws -> Image {
        if newSize == size { return self }
        guard newSize.width > 0, newSize.height > 0, newSize.width <= Int(Int32.max), newSize.height <= Int(Int32.max),
              let result = gdk_pixbuf_scale_simple(pixbuf, Int32(newSize.width), Int32(newSize.height), filter.gdkType)
        else { throw ImageError(.tooLarge, reason: "cannot scale to \(newSize)") }
        return Image(adopting: result)
    }

    /// The pixels inside `rect`, shared with this image (no copy).
    public func cropped(to rect: Rect) throws -> Image {
        guard rect.isInside(size) else {
            throw ImageError(.geometry, reason: "crop \(rect) lies outside the \(size) image")
        }
        if rect.size == size { return self }
        let sub = gdk_pixbuf_new_subpixbuf(pixbuf, Int32(rect.x), Int32(rect.y), Int32(rect.width), Int32(rect.height))!
        return Image(adopting: sub)
    }
}

extension Image {
    /// The part of the picture inside `region` (fractional pixels) resampled to `newSize`, in one
    /// pass that computes only the output pixels: a crop and a scale fused, so a small window of
    /// a huge picture costs only the window. Sampling outside the picture repeats its edge.
    public func resampled(from region: Region, to newSize: Size, filter: ScaleFilter = .bilinear) throws -> Image {
        guard region.width > 0, region.height > 0 else {
            throw ImageError(.geometry, reason: "cannot resample an empty region \(region)")
        }
        if region == Region(x: 0, y: 0, width: Double(width), height: Double(height)) {
            return try scaled(to: newSize, filter: filter)
        }
        let whole = Rect(x: Int(region.x), y: Int(region.y), width: newSize.width, height: newSize.height)
        if Double(whole.x) == region.x, Double(whole.y) == region.y, Double(whole.width) == region.width,
           Double(whole.height) == region.height, whole.isInside(size) {
            return try cropped(to: whole) // no scaling at all: share the pixels
        }
        let target = try Image.make(size: newSize, hasAlpha: hasAlpha) { _ in }
        let scaleX = Double(newSize.width) / region.width
        let scaleY = Double(newSize.height) / region.height
        gdk_pixbuf_scale(pixbuf, target.pixbuf, 0, 0, Int32(newSize.width), Int32(newSize.height),
                         -region.x * scaleX, -region.y * scaleY, scaleX, scaleY, filter.gdkType)
        return target
    }
}
