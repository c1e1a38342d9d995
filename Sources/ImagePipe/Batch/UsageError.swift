/// A mistake in how the command was called; exit status 2.
package struct UsageError: Error, Equatable, Sendable, CustomStringConvertible {
    package let description: String
    package init(_ message: String) { description = message }
}
