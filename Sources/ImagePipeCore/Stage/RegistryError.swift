/// Why a plugin could not be registered.
public struct RegistryError: Error, Equatable, Sendable, CustomStringConvertible {
    public var stageName: String
    public var existingPlugin: String
    public var newPlugin: String

    public var description: String {
        "plugin '\(newPlugin)': stage '\(stageName)' is already defined by plugin '\(existingPlugin)'"
    }
}
