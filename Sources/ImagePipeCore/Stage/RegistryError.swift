/// Why a plugin could not be registered: one of its stages, and what is wrong with it.
public struct RegistryError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The refused stage's name, as a message may quote it (`DeclaredName.shown`).
    public var stageName: String
    /// The plugin that already defines the name, when that is the reason.
    public var existingPlugin: String?
    public var newPlugin: String
    /// What is wrong, as words that follow the stage's name: "is already defined by plugin 'core'".
    public var reason: String

    public var description: String { "plugin '\(newPlugin)': stage '\(stageName)' \(reason)" }
}
