/// Why a stage's arguments are not acceptable, and which argument to point at.
public struct ArgumentError: Error, Equatable, Sendable {
    /// What the error points at in the pipeline text.
    public enum Target: Equatable, Sendable {
        /// The stage as a whole (its name).
        case stage
        /// The name part of the argument at this index.
        case key(Int)
        /// The value part of the argument at this index.
        case value(Int)
        /// Whichever argument gave this parameter, else the stage.
        case parameter(String)
    }

    public var target: Target
    public var message: String

    public init(_ message: String, at target: Target = .stage) {
        self.message = message
        self.target = target
    }

    /// An error about one parameter, for a stage's own checks across parameters.
    public static func parameter(_ name: String, _ message: String) -> ArgumentError {
        ArgumentError(message, at: .parameter(name))
    }
}
