/// Writes an animation frame by frame, as the frames come out of a pipeline, into a file's bytes.
public protocol AnimationEncoder: AnyObject {
    /// Adds the next frame, shown for `delay` milliseconds. Every frame has the first's size.
    func add(_ image: Image, delay: Int) throws
    /// The finished file.
    func finish() throws -> ByteChunks
}

/// The animation encoder for an output format, nil when the format holds one picture.
public enum AnimationEncoding {
    /// Formats that hold an animation: those whose codec has an encoder, and frames.
    public static let formats: Set<ImageFormat> = Set(ImageFormat.encodable.filter { Codecs.of($0).capabilities.frames })

    public static func encoder(for format: ImageFormat, options: SaveOptions, plays: Int?) -> (any AnimationEncoder)? {
        Codecs.of(format).animationEncoder(options: options, plays: plays)
    }
}
