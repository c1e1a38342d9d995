/// One parameter of a stage as its schema knows it: name in the language, type, default, help.
/// A compiled stage declares it with a `Param` (which also binds it to the stage's property); a
/// stage of a plugin loaded at run time has it from JSON.
public struct Parameter: Hashable, Sendable {
    public let name: String
    public let type: ParameterType
    /// The value when none is given; nil for a required or optional-without-default parameter.
    public let defaultValue: Value?
    public let isRequired: Bool
    /// Whether the parameter may be given without its `name=` (positional parameters are
    /// filled in schema order).
    public let isPositional: Bool
    /// Whether the word `auto` may be written for "no value": the stage then works the value
    /// out itself (`size=auto`). Only for parameters without a default.
    public let acceptsAuto: Bool
    public let help: String

    public init(_ name: String, _ type: ParameterType, default defaultValue: Value? = nil,
                required: Bool = false, positional: Bool = false, auto acceptsAuto: Bool = false, help: String) {
        // fatalError keeps its message in an optimised build; a declaration's writer needs it.
        guard !acceptsAuto || (defaultValue == nil && !required) else {
            fatalError("parameter '\(name)': auto stands for a missing value, so it cannot be required or have a default")
        }
        self.acceptsAuto = acceptsAuto
        self.name = name
        self.type = type
        self.defaultValue = defaultValue
        self.isRequired = required
        self.isPositional = positional
        self.help = help
    }

    /// `name=TYPE` with its default, as usage lines show it.
    public var usage: String {
        let shown = defaultValue.map(type.format) ?? (acceptsAuto ? "auto" : type.placeholder)
        let placeholder = isPositional ? name.uppercased() : "\(name)=\(shown)"
        return isRequired ? placeholder : "[\(placeholder)]"
    }
}
