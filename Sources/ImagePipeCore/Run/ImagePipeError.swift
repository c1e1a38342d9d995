/// What every error the framework throws has in common, so that a program embedding it can
/// catch one type: a readable message, where in pipeline text it points when it comes from
/// text, and the error it wraps when it wraps one. `description` is the message as the command
/// prints it (with its place, when it has one).
public protocol ImagePipeError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, in words, without the place.
    var message: String { get }
    /// Where in pipeline text the error points; nil for errors that do not come from text.
    var location: SourceLocation? { get }
    /// The error underneath, when this one wraps another.
    var underlying: (any Error)? { get }
    /// What the person running the pipeline can do about it, when it is a setting of the run;
    /// the message leaves this to the front end to word.
    var remedy: Remedy? { get }
}

extension ImagePipeError {
    public var location: SourceLocation? { nil }
    public var underlying: (any Error)? { nil }
    public var remedy: Remedy? { nil }
}

extension ArgumentError: ImagePipeError {
    public var description: String { message }
}

extension ValueError: ImagePipeError {
    public var message: String { reason }
    public var description: String { reason }
}

extension StageError: ImagePipeError {}

extension ImageError: ImagePipeError {
    /// The file, the kind of failure and the reason, as `description` gives them.
    public var message: String { description }
}

extension PipelineSyntaxError: ImagePipeError {
    public var message: String { diagnostics.map(\.message).joined(separator: "; ") }
    /// The first error's place.
    public var location: SourceLocation? { diagnostics.first?.location }
    /// The first error's remedy; each diagnostic has its own.
    public var remedy: Remedy? { diagnostics.first?.remedy }
}

extension JSONValue.ParseError: ImagePipeError {
    public var message: String { description }
}
