extension Save {
    /// The longest side a format's encoder writes, where a picture within the pixel limit can
    /// reach it: libjpeg's `JPEG_MAX_DIMENSION` (65,500), libwebp's `WEBP_MAX_DIMENSION` (16,383),
    /// GIF's 16-bit sizes and ICO's 256. nil where the format's bound is past any such picture
    /// (PNG, TIFF and BMP: 2^31 and more; AVIF: 65,536 on both sides, 4.3 gigapixels).
    static func longestSide(of format: ImageFormat) -> (pixels: Int, by: String)? {
        switch format {
        case .jpeg: (65_500, "libjpeg's limit")
        case .webp: (16_383, "libwebp's limit")
        case .gif: (65_535, "its sizes are 16-bit")
        case .ico: (256, "the format's limit")
        default: nil
        }
    }

    /// Refuses, from the plan, a picture of `size` that this save's format cannot hold: the
    /// encoder would say so only after the decode and every stage had run. A save whose path or
    /// format is wrong is left to the checks that name that.
    func checkSize(_ size: Size, in context: RunContext) throws(StageError) {
        // A pyramid's tiles are small whatever the picture's size.
        guard let (path, format) = try? target(in: context), pyramidLayout(path: path) == nil, let limit = Self.longestSide(of: format),
              size.width > limit.pixels || size.height > limit.pixels else { return }
        let (longest, by) = limit
        let name = format == .jpeg ? "JPEG" : format == .webp ? "WebP" : format.rawValue.uppercased()
        let others = format == .ico ? "PNG" : "PNG or TIFF"
        throw StageError("'\(path)' would be a \(size) \(name), but \(name) holds at most \(longest) pixels on a side (\(by)); make it smaller (resize …), or write \(others)")
    }
}
