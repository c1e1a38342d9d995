/// A stage's refusal at plan or run time: geometry it cannot make, a value it cannot use.
public struct StageError: Error, Equatable, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
