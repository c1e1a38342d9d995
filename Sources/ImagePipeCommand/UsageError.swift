/// A mistake in how the command was called; exit status 2.
struct UsageError: Error, Equatable, CustomStringConvertible {
    let description: String
    init(_ message: String) { description = message }
}
