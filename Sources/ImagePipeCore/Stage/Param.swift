/// One parameter of a stage type, declared once: the stored property it sets, and the name, type,
/// default and help that the schema is built from.
///
/// `Param(\.zoom, "zoom", .number(1...64), default: 1, help: "…")` is the whole declaration:
/// the schema's `Parameter` comes from it, and the stage's `init(arguments:)` and `arguments`
/// read and write the property through the key path. A misspelt property does not compile, the
/// kind must have the property's Swift type, and the name string is written nowhere else.
///
/// What the property's type says about the parameter:
/// - `T` with `default:` — optional in the text, the default when not given;
/// - `T` without a default — required: the stage cannot exist without it;
/// - `T?` — optional without a default (`nil` when not given), perhaps written `auto`.
///
/// (`Parameter` is the untyped view the schema, the help and the JSON of run-time plugins use;
/// stages declare `Param`s.)
public struct Param<S>: Sendable {
    /// What the schema knows of the parameter.
    public let parameter: Parameter
    /// The property, to tell two parameters bound to one property apart at declaration time.
    /// (Key paths are immutable values; the standard library just does not mark `AnyKeyPath`
    /// Sendable.)
    nonisolated(unsafe) let key: AnyKeyPath
    /// Writes a validated value (nil: not given and no default) into the stage.
    let set: @Sendable (inout S, Value?) -> Void
    /// The stage's value of the parameter, nil for an optional one that is unset.
    let get: @Sendable (S) -> Value?

    public var name: String { parameter.name }

    /// A parameter with a default: it may be left out, and then has `default`.
    public init<T>(_ property: WritableKeyPath<S, T> & Sendable, _ name: String, _ kind: ParameterKind<T>, default defaultValue: T,
                   positional: Bool = false, help: String) {
        self.init(property, Parameter(name, kind.type, default: kind.value(defaultValue), positional: positional, help: help), kind)
    }

    /// A required parameter: the property has no value the stage could do without.
    public init<T>(_ property: WritableKeyPath<S, T> & Sendable, _ name: String, _ kind: ParameterKind<T>,
                   positional: Bool = false, help: String) {
        self.init(property, Parameter(name, kind.type, required: true, positional: positional, help: help), kind)
    }

    /// An optional parameter without a default: nil when not given, or when written `auto` (if
    /// `auto` is true). `required` makes it compulsory in the text though the property is optional
    /// (`tee` needs the path that `save` can do without).
    public init<T>(_ property: WritableKeyPath<S, T?> & Sendable, _ name: String, _ kind: ParameterKind<T>,
                   required: Bool = false, positional: Bool = false, auto: Bool = false, help: String) {
        parameter = Parameter(name, kind.type, required: required, positional: positional, auto: auto, help: help)
        key = property
        set = { stage, value in stage[keyPath: property] = value.map { Self.typed($0, kind, name) } }
        get = { stage in stage[keyPath: property].map(kind.value) }
    }

    private init<T>(_ property: WritableKeyPath<S, T> & Sendable, _ parameter: Parameter, _ kind: ParameterKind<T>) {
        self.parameter = parameter
        key = property
        let name = parameter.name
        set = { stage, value in
            // The schema fills in defaults and refuses missing required values, so a value is here.
            guard let value else { fatalError("no value for parameter '\(name)'") }
            stage[keyPath: property] = Self.typed(value, kind, name)
        }
        get = { stage in kind.value(stage[keyPath: property]) }
    }

    private init(parameter: Parameter, key: AnyKeyPath, set: @escaping @Sendable (inout S, Value?) -> Void,
                 get: @escaping @Sendable (S) -> Value?) {
        self.parameter = parameter
        self.key = key
        self.set = set
        self.get = get
    }

    /// The same parameter on a stage that holds an `S` at `part`: how `tee` takes `save`'s
    /// parameters without declaring them again.
    public func lifted<Outer>(to part: WritableKeyPath<Outer, S> & Sendable) -> Param<Outer> {
        let set = self.set, get = self.get
        return Param<Outer>(parameter: parameter, key: (part as AnyKeyPath).appending(path: key) ?? part,
                            set: { outer, value in set(&outer[keyPath: part], value) },
                            get: { outer in get(outer[keyPath: part]) })
    }

    private static func typed<T>(_ value: Value, _ kind: ParameterKind<T>, _ name: String) -> T {
        // The schema parsed the value with this kind's own type, so it always converts.
        guard let typed = kind.read(value) else { fatalError("parameter '\(name)' holds \(value), not \(T.self)") }
        return typed
    }
}
