/// An argument as written, before validation: `value` or `key=value`.
public struct RawArgument: Hashable, Sendable {
    public var key: String?
    public var value: String

    public init(key: String? = nil, _ value: String) {
        self.key = key
        self.value = value
    }
}
