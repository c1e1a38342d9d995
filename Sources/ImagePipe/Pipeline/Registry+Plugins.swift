import CImagePipePlugin
#if canImport(Glibc)
import Glibc
#endif

extension Registry {
    /// The interface version this build of ImagePipe speaks (`imagepipe_plugin.h`).
    public static let pluginInterfaceVersion = Int(IMAGEPIPE_PLUGIN_INTERFACE_VERSION)

    /// Loads a plugin shared library and registers its stages, all or none.
    ///
    /// The library stays loaded for the life of the process: stages made from it may be in use
    /// anywhere. Refusals — not a shared library, not an ImagePipe plugin, another interface
    /// version, a plugin that fails to describe itself, stage names already taken — throw an
    /// error naming the file and leave the registry as it was.
    public mutating func loadPlugin(at path: String) throws(PluginLoadError) {
        func refuse(_ reason: String) -> PluginLoadError { PluginLoadError(path: path, reason: reason) }
        // A name without a slash would be searched for in the system's library path instead.
        let file = path.contains("/") ? path : "./" + path
        guard let library = dlopen(file, RTLD_NOW | RTLD_LOCAL) else {
            throw refuse("cannot be loaded: \(dlerror().map { String(cString: $0) } ?? "unknown reason")")
        }
        guard let symbol = dlsym(library, "imagepipe_plugin_entry") else {
            throw refuse("not an ImagePipe plugin: it has no imagepipe_plugin_entry function")
        }
        let entry = unsafeBitCast(symbol, to: imagepipe_plugin_entry_function.self)
        guard let table = entry() else { throw refuse("its imagepipe_plugin_entry gave nothing") }
        let version = Int(table.pointee.interface_version)
        guard version == Self.pluginInterfaceVersion else {
            throw refuse("built for plugin interface version \(version); this imagepipe speaks version \(Self.pluginInterfaceVersion)")
        }
        var error: UnsafeMutablePointer<CChar>?
        let description = table.pointee.describe(&error)
        if let error {
            let message = String(cString: error)
            table.pointee.free_string(error)
            throw refuse("failed while registering: \(message)")
        }
        guard let description, let json = JSONValue.parse(String(cString: description)) else {
            throw refuse("described itself with text that is not JSON")
        }
        guard let name = json["name"]?.stringValue, let stages = json["stages"]?.arrayValue else {
            throw refuse("its description has no name or no stages")
        }
        let functions = ExternalStage.Table(pointer: table)
        var definitions: [StageDefinition] = []
        for stage in stages {
            let schema: Schema
            do { schema = try SchemaCoding.decode(stage) } catch { throw refuse("\(error.message)") }
            definitions.append(StageDefinition(schema: schema) { arguments in
                do {
                    return try ExternalStage(table: functions, schema: schema, arguments: arguments)
                } catch var error as ArgumentError {
                    error.message = "\(schema.name): \(error.message)"
                    throw error
                }
            })
        }
        do {
            try register(Plugin(name: name, summary: json["summary"]?.stringValue ?? "", definitions: definitions), origin: path)
        } catch {
            throw refuse("\(error)")
        }
    }
}
