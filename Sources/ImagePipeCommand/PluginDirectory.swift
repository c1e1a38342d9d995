#if canImport(Glibc)
import Glibc
#endif

/// The plugin libraries in a directory of IMAGEPIPE_PLUGIN_PATH: every `.so` file, sorted.
enum PluginDirectory {
    /// `PREFIX/lib/imagepipe/plugins` beside the installed command (`PREFIX/bin/imagepipe`),
    /// where `make install` and the .deb put plugins; nil when there is no such directory.
    static func installed() -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard length > 0 else { return nil }
        let executable = String(decoding: buffer.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard let slash = executable.lastIndex(of: "/") else { return nil }
        let directory = String(executable[..<slash]) + "/../lib/imagepipe/plugins"
        var status = stat()
        return stat(directory, &status) == 0 && (status.st_mode & S_IFMT) == S_IFDIR ? directory : nil
    }

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
