import ImagePipe
#if canImport(Glibc)
import Glibc
#endif

/// One picture to process: its path, and the directory it was found in (for `{dir}`).
struct BatchInput: Sendable {
    let path: String
    let root: String?

    /// Expands the command line's inputs: files as they are, directories to the pictures in them
    /// (recursively with `recursive`; by the extensions of the `allowed` formats), hidden files
    /// skipped, each directory's files sorted.
    static func collect(_ arguments: [String], recursive: Bool, allowed: Set<SourceFormat> = SourceFormat.vetted) throws -> (inputs: [BatchInput], sawDirectory: Bool) {
        let extensions = ImageFormat.readableExtensions(of: allowed)
        var inputs: [BatchInput] = []
        var sawDirectory = false
        for argument in arguments {
            var status = stat()
            if argument != "-", stat(argument, &status) == 0, (status.st_mode & S_IFMT) == S_IFDIR {
                sawDirectory = true
                let root = argument.utf8.count > 1 && argument.utf8.last == UInt8(ascii: "/") ? String(decoding: argument.utf8.dropLast(), as: UTF8.self) : argument
                inputs += try pictures(in: root, recursive: recursive, extensions: extensions).map { BatchInput(path: $0, root: root) }
            } else {
                inputs.append(BatchInput(path: argument, root: nil))
            }
        }
        return (inputs, sawDirectory)
    }

    private static func pictures(in directory: String, recursive: Bool, extensions: Set<String>) throws -> [String] {
        guard let handle = opendir(directory) else {
            throw UsageError("cannot read directory '\(directory)': \(String(cString: strerror(errno)))")
        }
        defer { closedir(handle) }
        var files: [String] = [], subdirectories: [String] = []
        while let entry = readdir(handle) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
            guard name.utf8.first != UInt8(ascii: ".") else { continue } // a byte test: ".\u{301}x" is hidden too
            let path = directory + "/" + name
            var status = stat()
            guard stat(path, &status) == 0 else { continue }
            if (status.st_mode & S_IFMT) == S_IFDIR {
                if recursive { subdirectories.append(path) }
            } else if let ext = PathBytes.splitExtension(name).ext, extensions.contains(ext.lowercased()) {
                files.append(path)
            }
        }
        return try files.sorted() + subdirectories.sorted().flatMap { try pictures(in: $0, recursive: true, extensions: extensions) }
    }
}
