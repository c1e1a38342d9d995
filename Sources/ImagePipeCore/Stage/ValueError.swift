/// Why an argument's text is not a valid value: what was expected or allowed.
public struct ValueError: Error, Equatable, Sendable {
    public var reason: String
    public init(_ reason: String) { self.reason = reason }
}
