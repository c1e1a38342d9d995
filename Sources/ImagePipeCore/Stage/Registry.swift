/// The stages a pipeline may use, by name. Registering is all-or-nothing per plugin, and a name
/// can be registered once only.
public struct Registry: Sendable {
    /// A registered stage and where it came from.
    public struct Entry: Sendable {
        public let definition: StageDefinition
        public let plugin: String
        /// The file the plugin was loaded from; nil when compiled in.
        public let origin: String?

        public var schema: Schema { definition.schema }
    }

    private var entries: [String: Entry] = [:]
    /// Plugin names in registration order, for listings.
    public private(set) var plugins: [Plugin] = []

    public init() {}

    /// A registry holding the given plugins; traps on a clash, which is a bug in the caller.
    public init(plugins: [Plugin]) {
        for plugin in plugins {
            do { try register(plugin) } catch { preconditionFailure("\(error)") }
        }
    }

    public mutating func register(_ plugin: Plugin, origin: String? = nil) throws(RegistryError) {
        var seen: [String: String] = [:]
        for stage in plugin.stages {
            let name = stage.schema.name
            if let existing = entries[name]?.plugin ?? seen[name] {
                throw RegistryError(stageName: name, existingPlugin: existing, newPlugin: plugin.name)
            }
            seen[name] = plugin.name
        }
        for stage in plugin.stages {
            entries[stage.schema.name] = Entry(definition: stage, plugin: plugin.name, origin: origin)
        }
        plugins.append(plugin)
    }

    public func entry(named name: String) -> Entry? { entries[name] }

    /// The file a plugin was loaded from; nil when compiled in.
    public func origin(ofPlugin name: String) -> String? {
        entries.values.first { $0.plugin == name }?.origin
    }

    /// Every stage name, sorted.
    public var stageNames: [String] { entries.keys.sorted() }
}
