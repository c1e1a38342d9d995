/// A stage whose interface is a `StageDeclaration`: its schema, `init(arguments:)` and
/// `arguments` come from the declaration, so the stage writes its parameters once.
///
///     public struct SepiaStage: Transform, DeclaredStage {
///         public static let declaration = StageDeclaration("sepia", summary: "Tone the picture sepia",
///                                                          example: "sepia 80%", start: SepiaStage(), [
///             Param(\.amount, "amount", .percentage(0...100), default: 100, positional: true, help: "How much sepia."),
///         ])
///         public var amount: Double
///         …
///
/// Checks across parameters go in `check()`, which runs once every parameter is set.
public protocol DeclaredStage: Stage {
    static var declaration: StageDeclaration<Self> { get }
    /// Refuses combinations of values the parameters' types allow one by one (`give angle or pan,
    /// not both`); throw `ArgumentError.parameter` to point at the parameter in the text.
    func check() throws(ArgumentError)
}

extension DeclaredStage {
    public static var schema: Schema { declaration.schema }

    public init(arguments: Arguments) throws {
        self = try Self.declaration.stage(from: arguments)
        try check()
    }

    public var arguments: Arguments { Self.declaration.arguments(of: self) }

    public func check() throws(ArgumentError) {}
}
