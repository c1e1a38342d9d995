/// Why an image could not be read, made or written; names the file where there is one.
public struct ImageError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Kind: String, Sendable {
        case unreadable = "cannot read"
        case unsupported = "unsupported format"
        case corrupt = "corrupt image"
        case tooLarge = "too large"
        case unwritable = "cannot write"
        case geometry = "bad geometry"
        case timedOut = "timed out"
        case interrupted = "interrupted"
    }

    public var kind: Kind
    /// The file concerned, or nil for in-memory images.
    public var path: String?
    public var reason: String

    public init(_ kind: Kind, path: String? = nil, reason: String) {
        self.kind = kind
        self.path = path
        self.reason = reason
    }

    /// A picture refused for having more pixels than the limit (`--max-pixels`).
    public static func tooManyPixels(_ size: Size, limit: Int, path: String?) -> ImageError {
        ImageError(.tooLarge, path: path, reason: "\(size) is \(size.pixelCount) pixels, more than the limit of \(limit)")
    }

    /// Input refused for having more bytes than the limit (`--max-input-bytes`).
    public static func tooManyBytes(limit: Int, path: String?) -> ImageError {
        ImageError(.tooLarge, path: path, reason: "more than \(limit) bytes, the input limit (--max-input-bytes)")
    }

    public var description: String {
        "\(path.map { "\($0): " } ?? "")\(kind.rawValue): \(reason)"
    }
}
