/// A stage's refusal at plan or run time: geometry it cannot make, a value it cannot use.
public struct StageError: Error, Equatable, Sendable, CustomStringConvertible {
    public var message: String
    /// What can be done about it, when a setting of the run is the cause.
    public var remedy: Remedy?
    public init(_ message: String, remedy: Remedy? = nil) {
        self.message = message
        self.remedy = remedy
    }
    public var description: String { message }
}
