extension Save {
    /// The longest side a format's encoder writes (`Codec.longestSide`).
    static func longestSide(of format: ImageFormat) -> (pixels: Int, by: String)? { Codecs.of(format).longestSide }

    /// Refuses, from the plan, a picture of `size` that this save's format cannot hold: the
    /// encoder would say so only after the decode and every stage had run. A save whose path or
    /// format is wrong is left to the checks that name that.
    func checkSize(_ size: Size, in context: RunContext) throws(StageError) {
        // A pyramid's tiles are small whatever the picture's size.
        guard let (path, format) = try? target(in: context), pyramidLayout(path: path) == nil, let limit = Self.longestSide(of: format),
              size.width > limit.pixels || size.height > limit.pixels else { return }
        let (longest, by) = limit
        let name = format.displayName
        let others = [ImageFormat.png, .tiff].filter { other in
            other != format && Self.longestSide(of: other).map { size.width <= $0.pixels && size.height <= $0.pixels } ?? true
        }.map(\.displayName).joined(separator: " or ")
        throw StageError("'\(path)' would be a \(size) \(name), but \(name) holds at most \(longest) pixels on a side (\(by)); make it smaller (resize …), or write \(others)")
    }
}
