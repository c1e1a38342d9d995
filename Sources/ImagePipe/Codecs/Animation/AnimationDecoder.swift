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
    /// A decoder over a GIF, WebP, APNG or AVIF sequence held in `bytes`; nil for other formats.
    /// `canvas` is the size the header read found (a GIF's screen widened to hold its first frame).
    /// `options` gives the pixel limit each GIF frame is held to and the deadline the frames are
    /// decoded by; by default, those of the run in progress (`LoadOptions.current`).
    public static func decoder(for bytes: [UInt8], format: SourceFormat, canvas: Size? = nil, options: LoadOptions = .current,
                               failOnDamage: Bool, path: String?) throws -> (any AnimationDecoder)? {
        switch format {
        case .gif: try GIFFrameDecoder(input: .init(bytes: bytes), canvas: canvas, options: options, failOnDamage: failOnDamage, path: path)
        case .webp: try WebPFrameDecoder(bytes: bytes, options: options, failOnDamage: failOnDamage, path: path)
        case .avif: try AVIFFrameDecoder(bytes: bytes, canvas: canvas, failOnDamage: failOnDamage, path: path)
        case .png: try APNGFrameDecoder(bytes: bytes, options: options, failOnDamage: failOnDamage, path: path)
        case .jxl: try JXLFrameDecoder(bytes: bytes, options: options, failOnDamage: failOnDamage, path: path)
        default: nil
        }
    }

    /// A decoder over the GIF, WebP, APNG or AVIF file at `path`: a GIF is read as its frames are
    /// decoded, the others whole (libwebp's demuxer and libavif's parser need all of it).
    public static func decoder(path: String, format: SourceFormat, canvas: Size? = nil, options: LoadOptions, failOnDamage: Bool) throws -> (any AnimationDecoder)? {
        guard format == .gif, ImageFile.isRegularFile(path) else {
            return try decoder(for: ImageFile.readPicture(path: path, options: options), format: format, canvas: canvas, options: options,
                               failOnDamage: failOnDamage, path: path)
        }
        return try GIFFrameDecoder(input: .init(path: path, limit: options.maxInputBytes), canvas: canvas, options: options,
                                   failOnDamage: failOnDamage, path: path)
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
