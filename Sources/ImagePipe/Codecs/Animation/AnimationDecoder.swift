/// Reads an animation's frames one at a time, each composed onto the canvas as a viewer shows
/// it, so that the canvas is the only whole-frame buffer while the frames go through a pipeline.
public protocol AnimationDecoder: AnyObject {
    /// The size of every frame.
    var canvas: Size { get }
    /// How many times the animation plays: 0 forever, nil when the file does not say (once).
    var plays: Int? { get }
    /// The next frame, or nil after the last. A damaged frame throws when `failOnDamage` was
    /// asked for; otherwise the frames before it are the animation.
    func next() throws -> AnimationFrame?
}

/// Opening an animation's decoder for its format.
public enum AnimationDecoding {
    /// A decoder over the animation held in `bytes`, by its format's codec; nil for a format
    /// without frames. `canvas` is the size the header read found (a GIF's screen widened to
    /// hold its first frame). `options` gives the pixel limit each frame is held to and the
    /// deadline the frames are decoded by; by default, those of the run in progress
    /// (`LoadOptions.current`).
    public static func decoder(for bytes: [UInt8], format: ImageFormat, canvas: Size? = nil, options: LoadOptions = .current,
                               failOnDamage: Bool, path: String?) throws -> (any AnimationDecoder)? {
        try Codecs.of(format).frameDecoder(for: bytes, canvas: canvas, options: options, failOnDamage: failOnDamage, path: path)
    }

    /// A decoder over the animation in the file at `path`: a GIF is read as its frames are
    /// decoded, the others whole (libwebp's demuxer and libavif's parser need all of it).
    public static func decoder(path: String, format: ImageFormat, canvas: Size? = nil, options: LoadOptions, failOnDamage: Bool) throws -> (any AnimationDecoder)? {
        try Codecs.of(format).frameDecoder(path: path, canvas: canvas, options: options, failOnDamage: failOnDamage)
    }

    /// The image of a canvas held as RGBA rows: RGB when every pixel is opaque, so that an
    /// animation without transparency is not treated as one with alpha (JPEG would warn of
    /// flattening).
    static func image(ofRGBA rgba: UnsafeBufferPointer<UInt8>, size: Size) throws -> Image {
        var opaque = true
        var index = 3
        while index < rgba.count {
            if rgba[index] != 255 { opaque = false; break }
            index += 4
        }
        return try Image.make(size: size, hasAlpha: !opaque) { writer in
            for y in 0..<size.height {
                let row = writer.row(y), source = y * size.width * 4
                if opaque {
                    for x in 0..<size.width {
                        row[x * 3] = rgba[source + x * 4]
                        row[x * 3 + 1] = rgba[source + x * 4 + 1]
                        row[x * 3 + 2] = rgba[source + x * 4 + 2]
                    }
                } else {
                    for i in 0..<size.width * 4 { row[i] = rgba[source + i] }
                }
            }
        }
    }
}
