import Foundation

/// A fresh directory for one test, removed when the value is deinitialised.
public final class TemporaryDirectory: @unchecked Sendable {
    public let path: String

    public init() throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("imagepipe-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: base, withIntermediateDirectories: true)
        path = base.path
    }

    /// A fresh directory where a plugin may be loaded from: below the package's `.build`, not
    /// the system's temporary folder, since every folder above a plugin must be writable by its
    /// owner alone (and /tmp is writable by everyone).
    public static func forPlugins() throws -> TemporaryDirectory {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let base = root.appendingPathComponent(".build/plugin-tests")
        try FileManager.default.createDirectory(at: base, withIntermediateDirectories: true)
        let directory = base.appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        // The umask may have left them group-writable.
        for folder in [base, directory] { chmod(folder.path, 0o755) }
        return TemporaryDirectory(path: directory.path)
    }

    private init(path: String) { self.path = path }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    /// The path of `name` inside the directory.
    public func file(_ name: String) -> String { path + "/" + name }

    public func write(_ bytes: [UInt8], to name: String) throws -> String {
        let target = file(name)
        try Data(bytes).write(to: URL(fileURLWithPath: target))
        return target
    }

    public func write(_ text: String, to name: String) throws -> String {
        try write(Array(text.utf8), to: name)
    }

    /// The names of the files in the directory, sorted.
    public func contents() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: path).sorted()
    }
}
