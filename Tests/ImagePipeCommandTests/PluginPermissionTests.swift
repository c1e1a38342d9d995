import Foundation
import Testing
import ImagePipe
import TestSupport

/// A plugin anyone but its owner could have written is refused before it is loaded: loading it
/// would run their code.
@Suite struct PluginPermissionTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// A library without the plugin entry point: one that passes the permission check reaches
    /// dlopen and is then refused for that instead.
    private func library(at path: String) throws {
        let source = Self.root.appendingPathComponent("Tests/Fixtures/fake_plugin.c").path
        let include = Self.root.appendingPathComponent("Sources/CImagePipePlugin/include").path
        let result = try CommandRunner.runProgram("/usr/bin/cc", ["-shared", "-fPIC", "-DNO_ENTRY", "-I", include, source, "-o", path])
        try #require(result.status == 0, "cc failed: \(result.standardError)")
        #expect(chmod(path, 0o755) == 0)
    }

    private func load(_ path: String, environment: [String: String] = [:]) throws -> CommandRunner.Result {
        try CommandRunner.run(["stages", "--plugin", path], environment: environment)
    }

    @Test func aPluginWritableByOthersIsRefused() throws {
        let directory = try TemporaryDirectory()
        let plugin = directory.file("shared.so")
        try library(at: plugin)
        #expect(try load(plugin).standardError.hasPrefix("imagepipe: warning: plugin \(plugin): not an ImagePipe plugin"), "the check passes at 0755")
        for mode: mode_t in [0o775, 0o757] {
            #expect(chmod(plugin, mode) == 0)
            let result = try load(plugin)
            #expect(result.status == 0, "the command goes on without it")
            #expect(result.standardError == "imagepipe: warning: plugin \(plugin): refused: it is writable by group or others (mode \(String(mode, radix: 8))), so anyone could put code in it; chmod go-w '\(plugin)'\n")
            #expect(result.standardOutput.contains("  fit "))
        }
    }

    @Test func aPluginInADirectoryWritableByOthersIsRefused() throws {
        let directory = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: directory.file("open/plugins"), withIntermediateDirectories: true)
        let plugin = directory.file("open/plugins/p.so")
        try library(at: plugin)
        #expect(chmod(directory.file("open"), 0o777) == 0)
        let result = try load(plugin)
        #expect(result.standardError.hasPrefix("imagepipe: warning: plugin \(plugin): refused: its directory '\(directory.file("open"))' is writable by group or others (mode 777)"),
                "\(result.standardError)")
        // From IMAGEPIPE_PLUGIN_PATH too; a sticky directory (like /tmp) is fine.
        let fromPath = try CommandRunner.run(["stages"], environment: ["IMAGEPIPE_PLUGIN_PATH": directory.file("open/plugins")])
        #expect(fromPath.standardError.contains("refused: its directory"))
        #expect(chmod(directory.file("open"), 0o1777) == 0)
        #expect(try load(plugin).standardError.contains("not an ImagePipe plugin"), "sticky: only the owner may replace the file")
        // A link in a safe place to a file in an unsafe one is judged by the file's place.
        #expect(chmod(directory.file("open"), 0o777) == 0)
        try FileManager.default.createDirectory(atPath: directory.file("safe"), withIntermediateDirectories: true)
        #expect(symlink(plugin, directory.file("safe/link.so")) == 0)
        #expect(try load(directory.file("safe/link.so")).standardError.contains("refused: its directory '\(directory.file("open"))'"))
    }
}
