/// A pipeline's geometry for one source size, worked out before any pixel is decoded.
public struct Plan: Sendable {
    /// One transform with the size it receives and the size it gives.
    public struct Step: Sendable {
        public let stage: any Transform
        public let input: Size
        public let output: Size
    }

    /// The size the source produces (after EXIF orientation, if applied).
    public let sourceSize: Size
    public let steps: [Step]

    /// The size that reaches the sink.
    public var outputSize: Size { steps.last?.output ?? sourceSize }
}
