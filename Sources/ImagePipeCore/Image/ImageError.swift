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
    /// What can be done about it, when a setting of the run is the cause. Every `timedOut`
    /// error has `raiseTimeLimit` unless it says otherwise.
    public var remedy: Remedy?

    public init(_ kind: Kind, path: String? = nil, reason: String, remedy: Remedy? = nil) {
        self.kind = kind
        self.path = path
        self.reason = reason
        self.remedy = remedy ?? (kind == .timedOut ? .raiseTimeLimit : nil)
    }

    /// A picture refused for having more pixels than the run's pixel limit.
    public static func tooManyPixels(_ size: Size, limit: Int, path: String?) -> ImageError {
        ImageError(.tooLarge, path: path, reason: "\(size) is \(size.pixelCount) pixels, more than the limit of \(limit)", remedy: .raisePixelLimit)
    }

    /// Input refused for having more bytes than the run's input limit.
    public static func tooManyBytes(limit: Int, path: String?) -> ImageError {
        ImageError(.tooLarge, path: path, reason: "more than \(limit) bytes, the input limit", remedy: .raiseInputLimit)
    }

    public var description: String {
        "\(path.map { "\($0): " } ?? "")\(kind.rawValue): \(reason)"
    }
}
