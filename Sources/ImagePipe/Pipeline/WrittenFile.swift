/// A file a run wrote, and the size of the picture in it (after a stage whose size depends on
/// the pixels, such as `trim`, the size made, not the plan's).
public struct WrittenFile: Sendable, Equatable {
    /// The path, or `-` for standard output.
    public let path: String
    public let size: Size

    public init(path: String, size: Size) {
        self.path = path
        self.size = size
    }
}
