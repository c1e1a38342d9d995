import Foundation

/// The plugins of Tests/Fixtures/fake_plugin.c, built with the C compiler for a test: one
/// `-D` picks the variant.
public enum FixturePlugin {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    public struct BuildError: Error, CustomStringConvertible {
        public let description: String
    }

    /// Builds `variant` at `path` (mode 0755); those whose stage works (`gdkPixbuf`) link
    /// gdk-pixbuf. `plugin` and `stage` rename the plugin and its working stage, for a test that
    /// loads several fixtures at once; `strings` gives other C string macros of the file
    /// (`STAGE_SUMMARY`, `PARAMETER_NAME`, `PARAMETER_HELP`) their JSON text.
    public static func build(_ variant: String, at path: String, gdkPixbuf: Bool = false,
                             plugin: String? = nil, stage: String? = nil, strings: [String: String] = [:]) throws {
        let source = root.appendingPathComponent("Tests/Fixtures/fake_plugin.c").path
        let include = root.appendingPathComponent("Sources/CImagePipePlugin/include").path
        var flags: [String] = []
        if gdkPixbuf {
            let config = try CommandRunner.runProgram("/usr/bin/pkg-config", ["--cflags", "--libs", "gdk-pixbuf-2.0"])
            flags = config.standardOutput.split(whereSeparator: \.isWhitespace).map(String.init)
        }
        if let plugin { flags.append("-DPLUGIN_NAME=\"\(plugin)\"") }
        if let stage { flags.append("-DSTAGE_NAME=\"\(stage)\"") }
        flags += strings.sorted { $0.key < $1.key }.map { "-D\($0.key)=\"\($0.value)\"" }
        let result = try CommandRunner.runProgram("/usr/bin/cc", ["-shared", "-fPIC", "-D\(variant)", "-I", include, source, "-o", path] + flags)
        guard result.status == 0 else { throw BuildError(description: "cc failed: \(result.standardError)") }
        guard chmod(path, 0o755) == 0 else { throw BuildError(description: "chmod \(path): \(String(cString: strerror(errno)))") }
    }
}
