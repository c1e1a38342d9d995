/// A stage that writes the pipeline's image: the last stage, or (if it is also a Transform that
/// passes the image on, like `tee`) anywhere after the first.
public protocol Sink: Stage {
    /// Where `write` will put the image for this context, worked out before any pixel is made.
    func destination(in context: RunContext) throws -> String
    /// Writes the image; returns where it went (a path, or `-` for standard output).
    func write(_ image: Image, in context: RunContext) throws -> String
    /// Every file the sink writes: its destination, or each of a branch's groups'.
    func destinations(in context: RunContext) throws -> [String]
}

extension Sink {
    public func destinations(in context: RunContext) throws -> [String] { [try destination(in: context)] }
}
