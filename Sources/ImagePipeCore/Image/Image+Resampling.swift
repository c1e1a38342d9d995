import CGdkPixbuf

extension Image {
    /// The picture made `newSize` pixels large (see `resampled(from:to:kernel:linearLight:)`).
    public func scaled(to newSize: Size, kernel: Kernel? = nil, linearLight: Bool = false) throws -> Image {
        try resampled(from: Region(x: 0, y: 0, width: Double(width), height: Double(height)), to: newSize,
                      kernel: kernel, linearLight: linearLight)
    }

    /// The part of the picture inside `region` (fractional pixels) resampled to `newSize`, in one
    /// pass that reads only the window: a crop and a scale fused, placed sub-pixel. Without a
    /// kernel, Lanczos3 (`ScalingMode.defaultKernel`).
    /// Every scaling stage comes here, so quality is decided in one place.
    public func resampled(from region: Region, to newSize: Size, kernel: Kernel? = nil, linearLight: Bool = false) throws -> Image {
        guard region.width > 0, region.height > 0 else {
            throw ImageError(.geometry, reason: "cannot resample an empty region \(region)")
        }
        guard newSize.width > 0, newSize.height > 0, newSize.width <= Int(Int32.max), newSize.height <= Int(Int32.max) else {
            throw ImageError(.tooLarge, reason: "cannot scale to \(newSize)")
        }
        if let whole = region.pixelRect, whole.size == newSize, whole.isInside(size) {
            return try cropped(to: whole) // no scaling at all: share the pixels
        }
        return try Resampler(kernel: kernel ?? StageContext.current.scaling.defaultKernel, linearLight: linearLight).resample(self, from: region, to: newSize)
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
