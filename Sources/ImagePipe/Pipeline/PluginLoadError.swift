/// Why a plugin file was refused; names the file.
public struct PluginLoadError: Error, Equatable, Sendable, CustomStringConvertible {
    public var path: String
    public var reason: String

    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }

    public var description: String { "plugin \(path): \(reason)" }
}
