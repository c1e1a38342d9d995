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

    /// A registry holding the given plugins; stops the program on a refusal, which is a bug in
    /// the caller (fatalError keeps its message in an optimised build).
    public init(plugins: [Plugin]) {
        for plugin in plugins {
            do { try register(plugin) } catch { fatalError("\(error)") }
        }
    }

    /// Registers every stage of `plugin`, or none: each stage's name and its parameters' names
    /// must follow `DeclaredName`'s rule, and a stage's name must be neither a registered
    /// stage's nor a documented synonym of one (`StageSynonyms`: a stage named `scale` would
    /// silently take over the word that leads people to `resize`).
    public mutating func register(_ plugin: Plugin, origin: String? = nil) throws(RegistryError) {
        var seen: [String: String] = [:]
        for stage in plugin.stages {
            let schema = stage.schema, name = schema.name
            func refused(_ reason: String, existing: String? = nil) -> RegistryError {
                RegistryError(stageName: DeclaredName.shown(name), existingPlugin: existing, newPlugin: plugin.name, reason: reason)
            }
            if let problem = DeclaredName.problem(name) { throw refused(problem) }
            for parameter in schema.parameters {
                if let problem = DeclaredName.problem(parameter.name) {
                    throw refused("has a parameter '\(DeclaredName.shown(parameter.name))' whose name \(problem)")
                }
            }
            if let existing = entries[name]?.plugin ?? seen[name] {
                throw refused("is already defined by plugin '\(existing)'", existing: existing)
            }
            if let meant = StageSynonyms.table[name] {
                throw refused("is a documented synonym of '\(meant)' (the word that leads people to it); choose another name")
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
