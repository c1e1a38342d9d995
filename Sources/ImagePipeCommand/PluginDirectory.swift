#if canImport(Glibc)
import Glibc
#endif

/// The plugin libraries in a directory of IMAGEPIPE_PLUGIN_PATH: every `.so` file, sorted.
enum PluginDirectory {
    static func libraries(in directory: String) -> [String] {
        guard let handle = opendir(directory) else {
            Console.warning("IMAGEPIPE_PLUGIN_PATH: cannot read directory '\(directory)': \(String(cString: strerror(errno)))")
            return []
        }
        defer { closedir(handle) }
        var names: [String] = []
        while let entry = readdir(handle) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
            if name.hasSuffix(".so") { names.append(name) }
        }
        return names.sorted().map { directory + "/" + $0 }
    }
}
