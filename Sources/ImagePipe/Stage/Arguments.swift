/// A stage's validated arguments by parameter name, defaults filled in. Typed accessors trap
/// on a name the schema does not give a value for: that is a bug in the stage, not bad input.
public struct Arguments: Hashable, Sendable {
    public private(set) var values: [String: Value]

    public init(_ values: [String: Value] = [:]) { self.values = values }

    public subscript(name: String) -> Value? {
        get { values[name] }
        set { values[name] = newValue }
    }

    /// Whether the parameter has a value (given, or by default).
    public func has(_ name: String) -> Bool { values[name] != nil }

    /// The value of a parameter without a default, read by `read` (`arguments.number`), or nil
    /// when it was not given.
    public func ifGiven<T>(_ name: String, _ read: (String) -> T) -> T? { has(name) ? read(name) : nil }

    public func integer(_ name: String) -> Int { extract(name) { if case let .integer(v) = $0 { v } else { nil } } }
    public func number(_ name: String) -> Double { extract(name) { if case let .number(v) = $0 { v } else { nil } } }
    public func size(_ name: String) -> Size { extract(name) { if case let .size(v) = $0 { v } else { nil } } }
    public func point(_ name: String) -> Point { extract(name) { if case let .point(v) = $0 { v } else { nil } } }
    public func anchor(_ name: String) -> Anchor { extract(name) { if case let .anchor(v) = $0 { v } else { nil } } }
    public func color(_ name: String) -> Color { extract(name) { if case let .color(v) = $0 { v } else { nil } } }
    public func angle(_ name: String) -> Angle { extract(name) { if case let .angle(v) = $0 { v } else { nil } } }
    public func percentage(_ name: String) -> Double { extract(name) { if case let .percentage(v) = $0 { v } else { nil } } }
    public func choice(_ name: String) -> String { extract(name) { if case let .choice(v) = $0 { v } else { nil } } }
    public func boolean(_ name: String) -> Bool { extract(name) { if case let .boolean(v) = $0 { v } else { nil } } }
    public func string(_ name: String) -> String { extract(name) { if case let .string(v) = $0 { v } else { nil } } }
    public func numbers(_ name: String) -> [Double] { extract(name) { if case let .numbers(v) = $0 { v } else { nil } } }

    private func extract<T>(_ name: String, _ match: (Value) -> T?) -> T {
        guard let value = values[name] else { preconditionFailure("no value for parameter '\(name)'") }
        guard let typed = match(value) else { preconditionFailure("parameter '\(name)' holds \(value), not \(T.self)") }
        return typed
    }
}
