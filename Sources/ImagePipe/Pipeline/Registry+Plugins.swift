import CImagePipePlugin
#if canImport(Glibc)
import Glibc
#endif

extension Registry {
    /// The interface version this build of ImagePipe speaks (`imagepipe_plugin.h`).
    public static let pluginInterfaceVersion = Int(IMAGEPIPE_PLUGIN_INTERFACE_VERSION)
    /// The version of the JSON a plugin describes itself with.
    public static let pluginSchemaVersion = Int(IMAGEPIPE_PLUGIN_SCHEMA_VERSION)
    /// The plugin keys this build reads; any other is refused (a renamed key is an error).
    package static let pluginKeys: Set<String> = ["schemaVersion", "name", "summary", "stages"]

    /// Loads a plugin shared library and registers its stages, all or none.
    ///
    /// Loading a plugin runs its code with the user's rights, so a file or directory that
    /// someone else could have written is refused before `dlopen` (see `PluginFile`).
    ///
    /// The library stays loaded for the life of the process: stages made from it may be in use
    /// anywhere. Refusals — not a shared library, not an ImagePipe plugin, another interface
    /// version, a plugin that fails to describe itself, stage names already taken — throw an
    /// error naming the file and leave the registry as it was.
    public mutating func loadPlugin(at path: String) throws(PluginLoadError) {
        let file = try PluginFile(opening: path)
        defer { file.close() }
        try loadPlugin(file)
    }

    /// Loads an opened plugin file and registers its stages, all or none; refusals as
    /// `loadPlugin(at:)`'s. The descriptor stays open: the caller closes it.
    package mutating func loadPlugin(_ file: PluginFile) throws(PluginLoadError) {
        let path = file.path
        func refuse(_ reason: String) -> PluginLoadError { PluginLoadError(path: path, reason: reason) }
        // The loader knows a library by the name it was opened with, `/proc/self/fd/N`: were N
        // closed and given to the next plugin, dlopen would hand back this one. So the library is
        // opened through a copy of the descriptor that stays open as long as the library stays
        // loaded, the life of the process; the caller's descriptor is the caller's to close.
        let pinned = fcntl(file.descriptor, F_DUPFD_CLOEXEC, 0)
        guard pinned >= 0 else { throw refuse("cannot be loaded: \(String(cString: strerror(errno)))") }
        let loadName = "/proc/self/fd/\(pinned)"
        guard let library = dlopen(loadName, RTLD_NOW | RTLD_LOCAL) else {
            close(pinned)
            // The loader names the descriptor it opened; the user knows the file by its path.
            let reason = dlerror().map { String(cString: $0) } ?? "unknown reason"
            throw refuse("cannot be loaded: \(reason.replacingAll(loadName, with: path))")
        }
        guard let symbol = dlsym(library, "imagepipe_plugin_entry") else {
            throw refuse("not an ImagePipe plugin: it has no imagepipe_plugin_entry function")
        }
        let entry = unsafeBitCast(symbol, to: imagepipe_plugin_entry_function.self)
        guard let table = entry() else { throw refuse("its imagepipe_plugin_entry gave nothing") }
        try loadPlugin(table: table, path: path)
    }

    /// Registers the stages of a plugin's function table, all or none, refusals naming `path` as
    /// `loadPlugin(at:)`'s; the table stays in use as long as the stages. Apart from the library's
    /// loading so that the schema fuzzer (`imagepipe-fuzz-schema`) hands it any description.
    package mutating func loadPlugin(table: UnsafePointer<imagepipe_plugin>, path: String) throws(PluginLoadError) {
        func refuse(_ reason: String) -> PluginLoadError { PluginLoadError(path: path, reason: reason) }
        let version = Int(table.pointee.interface_version)
        guard version == Self.pluginInterfaceVersion else {
            throw refuse("built for plugin interface \(version); this imagepipe loads interface \(Self.pluginInterfaceVersion)")
        }
        // Fields appended later are ignored; the fields up to make_rows must be there (shrink,
        // survey and warp only when the plugin has them).
        let size = Int(table.pointee.table_size), needed = ExternalStage.Table.requiredSize
        guard size >= needed else {
            throw refuse("its function table is \(size) bytes, shorter than the \(needed) this imagepipe calls; rebuild it against this imagepipe's imagepipe_plugin.h")
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
        guard let schemaVersion = json["schemaVersion"]?.numberValue else {
            throw refuse("its description has no schemaVersion; this imagepipe reads version \(Self.pluginSchemaVersion)")
        }
        // Compared as a number: Int(_:) of 1e300 or NaN traps, in an embedder's process too.
        guard schemaVersion == Double(Self.pluginSchemaVersion) else {
            throw refuse("its description has schemaVersion \(NumberFormat.text(schemaVersion)); this imagepipe reads version \(Self.pluginSchemaVersion)")
        }
        if let unknown = json.objectKeys?.first(where: { !Self.pluginKeys.contains($0) }) {
            throw refuse("its description has an unknown key '\(unknown)'")
        }
        guard let name = json["name"]?.stringValue, let stages = json["stages"]?.arrayValue else {
            throw refuse("its description has no name or no stages")
        }
        let functions = ExternalStage.Table(pointer: table)
        var definitions: [StageDefinition] = []
        for stage in stages {
            let schema: Schema
            do { schema = try SchemaCoding.decode(stage, strict: true) } catch { throw refuse("\(error.message)") }
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
