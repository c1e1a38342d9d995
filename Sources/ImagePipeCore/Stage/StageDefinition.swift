/// How a registry makes one stage: its schema and a function from validated arguments to the
/// stage. Compiled-in stages get one from their type; stages from plugins loaded at run time
/// build theirs from the schema the plugin describes.
public struct StageDefinition: Sendable {
    public let schema: Schema
    let make: @Sendable (Arguments) throws -> any Stage

    public init(schema: Schema, make: @escaping @Sendable (Arguments) throws -> any Stage) {
        self.schema = schema
        self.make = make
    }

    /// The definition of a compiled-in stage type.
    public init<S: Stage>(_ type: S.Type) {
        self.init(schema: S.schema) { try S.make(arguments: $0) }
    }

    /// Builds the stage; the stage's own checks' messages start with its name.
    public func makeStage(arguments: Arguments) throws -> any Stage { try make(arguments) }
}
