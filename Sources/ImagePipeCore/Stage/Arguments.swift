/// A stage's validated arguments by parameter name, defaults filled in: what the schema makes of
/// argument text, and what a stage's canonical text is made from.
///
/// There are no typed accessors by name (`arguments.number("zoom")`): stages read and write
/// their values through their `Param`s, so a misspelt name cannot compile.
public struct Arguments: Hashable, Sendable {
    public private(set) var values: [String: Value]

    public init(_ values: [String: Value] = [:]) { self.values = values }

    public subscript(name: String) -> Value? {
        get { values[name] }
        set { values[name] = newValue }
    }

    /// Whether the parameter has a value (given, or by default).
    public func has(_ name: String) -> Bool { values[name] != nil }
}
