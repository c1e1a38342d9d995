import CImagePipePlugin
#if canImport(Glibc)
import Glibc
#endif
import ImagePipe
import ImagePipeStages

/// What the schema fuzzer checks for any bytes, read as the JSON a plugin describes itself with
/// (`describe` in `imagepipe_plugin.h`), loaded into the stock registry through the same
/// `Registry.loadPlugin` an embedder calls: loading never traps; a refusal names the file and
/// says why; every stage it registers, and every parameter, has a name `DeclaredName` allows and
/// none the stock stages or their synonyms hold; and each registered stage's usage, defaults and
/// canonical text can be made without trapping.
public enum SchemaFuzzCheck {
    /// The path the refusals name.
    static let path = "/fuzz/libschema.so"

    /// The description `describe` gives: the input being checked (one at a time).
    nonisolated(unsafe) private static var description: UnsafeMutablePointer<CChar>?

    /// A table whose only working field is `describe`: no stage is ever made from it.
    nonisolated(unsafe) private static var table = imagepipe_plugin(
        interface_version: IMAGEPIPE_PLUGIN_INTERFACE_VERSION, table_size: UInt32(MemoryLayout<imagepipe_plugin>.size),
        describe: { _ in UnsafePointer(SchemaFuzzCheck.description) },
        create: { _, _, _ in nil }, destroy: { _ in }, free_string: { free($0) }, traits: nil,
        plan: { _, _, _, _, _, _, _ in 1 }, input_rows: nil, make_rows: { _, _, _, _, _, _, _, _, _ in nil },
        shrink: nil, survey: nil, warp: nil)

    /// The stock stages: the names a plugin may not take.
    private static let stock = Registry(plugins: StandardPlugins.all)

    /// Checks one input; a broken promise stops the process (so libFuzzer reports it).
    public static func check(_ bytes: UnsafeBufferPointer<UInt8>) {
        // A C string ends at its first NUL, as the host reads it.
        let text = String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
        var registry = stock
        if let error = load(text, into: &registry) {
            precondition(error.path == path && !error.reason.isEmpty, "a refusal without the file or a reason: \(error)")
            return
        }
        for name in registry.stageNames where stock.entry(named: name) == nil {
            guard let schema = registry.entry(named: name)?.schema else { continue }
            precondition(DeclaredName.problem(name) == nil && StageSynonyms.table[name] == nil, "registered a stage named \(name.debugDescription)")
            for parameter in schema.parameters {
                precondition(DeclaredName.problem(parameter.name) == nil, "registered a parameter named \(parameter.name.debugDescription)")
            }
            _ = schema.usage
            if let arguments = try? schema.arguments(from: []) { _ = schema.canonicalText(of: arguments) }
        }
    }

    /// Why the stock registry refuses a plugin that describes itself with `text`; nil when it loads.
    public static func refusal(of text: String) -> String? {
        var registry = stock
        return load(text, into: &registry).map(\.description)
    }

    /// Loads a plugin that describes itself with `text` into `registry`; the refusal, if any.
    private static func load(_ text: String, into registry: inout Registry) -> PluginLoadError? {
        description = strdup(text)
        defer {
            free(description)
            description = nil
        }
        do throws(PluginLoadError) {
            try withUnsafePointer(to: &table) { table throws(PluginLoadError) in try registry.loadPlugin(table: table, path: path) }
            return nil
        } catch {
            return error
        }
    }
}
