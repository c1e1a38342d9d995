extension Image {
    /// The smallest rectangle holding every pixel that differs from `background` by more than
    /// `threshold` in some channel (alpha included; two fully transparent pixels are equal
    /// whatever their colour), as libvips' `find_trim`; nil when every pixel is background.
    ///
    /// With `smoothing`, each channel is first taken as the median of the pixel's 3×3
    /// neighbourhood (edges repeated), as libvips' `find_trim` does: JPEG ringing swings to both
    /// sides of the border's colour, and its median stays close to it, so the ringing along a
    /// border is cut with the border rather than left as a strip.
    public func contentBounds(background: Color, threshold: Int, smoothing: Bool = true) throws(ImageError) -> Rect? {
        var scanner = ContentBoxScanner(background: background, threshold: threshold, smoothing: smoothing)
        try scanner.look(at: self, at: .whole(size))
        return scanner.box
    }
}
