/// Writes an animation frame by frame, as the frames come out of a pipeline, into a file's bytes.
public protocol AnimationEncoder: AnyObject {
    /// Adds the next frame, shown for `delay` milliseconds. Every frame has the first's size.
    func add(_ image: Image, delay: Int) throws
    /// The finished file.
    func finish() throws -> ByteChunks
}

/// The animation encoder for an output format, nil when the format holds one picture.
public enum AnimationEncoding {
    /// Formats that hold an animation.
    public static let formats: Set<ImageFormat> = [.gif, .webp, .avif, .png, .jxl]

    public static func encoder(for format: ImageFormat, options: SaveOptions, plays: Int?) -> (any AnimationEncoder)? {
        switch format {
        case .gif: GIFAnimationEncoder(colors: options.paletteColors, dither: options.dither, plays: plays, delayAsked: options.delay != nil)
        case .webp: WebPAnimationEncoder(options: options, plays: plays)
        case .avif: AVIFAnimationEncoder(options: options)
        case .png: APNGEncoder(options: options, plays: plays)
        case .jxl: JXLAnimationEncoder(options: options, plays: plays)
        default: nil
        }
    }
}
