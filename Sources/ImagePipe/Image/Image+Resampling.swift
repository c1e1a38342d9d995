import CGdkPixbuf

extension Image {
    /// The picture made `newSize` pixels large (see `resampled(from:to:kernel:linearLight:)`).
    public func scaled(to newSize: Size, kernel: Kernel? = nil, linearLight: Bool = false) throws -> Image {
        try resampled(from: Region(x: 0, y: 0, width: Double(width), height: Double(height)), to: newSize,
                      kernel: kernel, linearLight: linearLight)
    }

    /// The part of the picture inside `region` (fractional pixels) resampled to `newSize`, in one
    /// pass that reads only the window: a crop and a scale fused, placed sub-pixel. Without a
    /// kernel, the run's `ScalingMode` chooses (Lanczos3, or gdk-pixbuf's scaler in `fast`).
    /// Every scaling stage comes here, so quality is decided in one place.
    public func resampled(from region: Region, to newSize: Size, kernel: Kernel? = nil, linearLight: Bool = false) throws -> Image {
        guard region.width > 0, region.height > 0 else {
            throw ImageError(.geometry, reason: "cannot resample an empty region \(region)")
        }
        guard newSize.width > 0, newSize.height > 0, newSize.width <= Int(Int32.max), newSize.height <= Int(Int32.max) else {
            throw ImageError(.tooLarge, reason: "cannot scale to \(newSize)")
        }
        let whole = Rect(x: Int(region.x), y: Int(region.y), width: newSize.width, height: newSize.height)
        if Double(whole.x) == region.x, Double(whole.y) == region.y, Double(whole.width) == region.width,
           Double(whole.height) == region.height, whole.isInside(size) {
            return try cropped(to: whole) // no scaling at all: share the pixels
        }
        guard let kernel = kernel ?? ScalingMode.current.defaultKernel else {
            return try gdkScaled(from: region, to: newSize)
        }
        return try Resampler(kernel: kernel, linearLight: linearLight).resample(self, from: region, to: newSize)
    }

    /// gdk-pixbuf's bilinear scaler (`fast` mode): a box filter when shrinking, its output
    /// placed on whole pixels. It weights colour by alpha itself.
    private func gdkScaled(from region: Region, to newSize: Size) throws -> Image {
        if region == Region(x: 0, y: 0, width: Double(width), height: Double(height)) {
            guard let result = gdk_pixbuf_scale_simple(pixbuf, Int32(newSize.width), Int32(newSize.height), GDK_INTERP_BILINEAR) else {
                throw ImageError(.tooLarge, reason: "cannot scale to \(newSize)")
            }
            return Image(adopting: result)
        }
        let target = try Image.make(size: newSize, hasAlpha: hasAlpha) { _ in }
        let scaleX = Double(newSize.width) / region.width
        let scaleY = Double(newSize.height) / region.height
        gdk_pixbuf_scale(pixbuf, target.pixbuf, 0, 0, Int32(newSize.width), Int32(newSize.height),
                         -region.x * scaleX, -region.y * scaleY, scaleX, scaleY, GDK_INTERP_BILINEAR)
        return target
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
