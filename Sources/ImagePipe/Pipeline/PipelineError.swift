/// A stage's failure while planning or running, with the place the stage was written.
public struct PipelineError: Error, Equatable, Sendable, CustomStringConvertible {
    public var stage: String
    public var location: SourceLocation?
    public var message: String
    /// What can be done about it, when a setting of the run is the cause.
    public var remedy: Remedy?

    public init(stage: String, location: SourceLocation?, message: String, remedy: Remedy? = nil) {
        self.stage = stage
        self.location = location
        self.message = message
        self.remedy = remedy
    }

    /// `avatar.pipe:2:1: error: crop: …`, or `crop: …` for a stage made in code.
    public var description: String {
        (location.map { "\($0): error: " } ?? "") + "\(stage): \(message)"
    }
}
