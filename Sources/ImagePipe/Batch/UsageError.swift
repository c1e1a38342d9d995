import ImagePipeCore

/// A mistake in how a run or a batch was asked for (the command's exit status 2): its message
/// names no option of the command; `remedy`, when it is a setting of the run, is for the front
/// end to word (the command names its option).
public struct UsageError: ImagePipeError, Equatable {
    public let message: String
    public let remedy: Remedy?
    public var location: SourceLocation? { nil }
    public var underlying: (any Error)? { nil }
    public var description: String { message }

    package init(_ message: String, remedy: Remedy? = nil) {
        self.message = message
        self.remedy = remedy
    }

    public static func == (a: UsageError, b: UsageError) -> Bool { a.message == b.message && a.remedy == b.remedy }
}
