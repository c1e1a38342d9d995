import Foundation
import Testing
import ImagePipe
import TestSupport

/// A plugin anyone but the user or root could have written is refused before it is loaded:
/// loading it would run their code. That holds for the file and for every folder above it up
/// to /, sticky folders included.
@Suite struct PluginPermissionTests {
    /// A library without the plugin entry point: one that passes the permission check reaches
    /// dlopen and is then refused for that instead.
    private func library(at path: String) throws {
        try FixturePlugin.build("NO_ENTRY", at: path)
    }

    private func load(_ path: String, environment: [String: String] = [:]) throws -> CommandRunner.Result {
        try CommandRunner.run(["stages", "--plugin", path], environment: environment)
    }

    /// Makes `name` in `directory` with `mode` (the umask cannot change it).
    private func folder(_ name: String, in directory: TemporaryDirectory, mode: mode_t = 0o755) throws -> String {
        let path = directory.file(name)
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        #expect(chmod(path, mode) == 0)
        return path
    }

    /// The lines the fixture's constructor wrote: one for each process that ran its code.
    private func runs(_ marker: String) -> [Substring] {
        ((try? String(contentsOfFile: marker, encoding: .utf8)) ?? "").split(separator: "\n")
    }

    @Test func aPluginWritableByOthersIsRefused() throws {
        let directory = try TemporaryDirectory.forPlugins()
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
        let directory = try TemporaryDirectory.forPlugins()
        let open = try folder("open", in: directory)
        _ = try folder("open/plugins", in: directory)
        let plugin = directory.file("open/plugins/p.so")
        try library(at: plugin)
        #expect(chmod(open, 0o777) == 0)
        let result = try load(plugin)
        #expect(result.standardError.hasPrefix("imagepipe: warning: plugin \(plugin): refused: its directory '\(open)' is writable by group or others (mode 777)"),
                "\(result.standardError)")
        // From IMAGEPIPE_PLUGIN_PATH too; a sticky folder (like /tmp) is no better: anyone may
        // still add a plugin of theirs there, or swap a folder of theirs above it.
        let fromPath = try CommandRunner.run(["stages"], environment: ["IMAGEPIPE_PLUGIN_PATH": directory.file("open/plugins")])
        #expect(fromPath.standardError.contains("refused: its directory"))
        #expect(chmod(open, 0o1777) == 0)
        #expect(try load(plugin).standardError.hasPrefix("imagepipe: warning: plugin \(plugin): refused: its directory '\(open)' is writable by group or others (mode 1777)"))
        // A link in a safe place to a file in an unsafe one is judged by the file's place.
        #expect(chmod(open, 0o777) == 0)
        let safe = try folder("safe", in: directory)
        #expect(symlink(plugin, safe + "/link.so") == 0)
        #expect(try load(safe + "/link.so").standardError.contains("refused: its directory '\(open)'"))
    }

    /// The finding this guards against: another user's library in a sticky folder on the
    /// plugin path ran its constructor in the command. Now it is refused before any of its
    /// code runs, in the command or in the scanner.
    @Test func anotherUsersPluginInAStickyFolderIsRefusedAndNeverRuns() throws {
        try #require(geteuid() == 0, "chown to another user needs root")
        let directory = try TemporaryDirectory.forPlugins()
        let marker = directory.file("marker")
        let shared = try folder("shared", in: directory, mode: 0o1777)
        let plugin = shared + "/planted.so"
        try FixturePlugin.build("PLAIN", at: plugin)
        #expect(chown(plugin, 65534, 65534) == 0)
        _ = try directory.write(Synthetic.gradient(8, 8).encoded(as: .png), to: "in.png")
        let environment = ["IMAGEPIPE_PLUGIN_PATH": shared, "FIXTURE_MARKER": marker]
        let stages = try CommandRunner.run(["stages"], environment: environment)
        #expect(stages.status == 0)
        #expect(stages.standardError == "imagepipe: warning: plugin \(plugin): refused: its directory '\(shared)' is writable by group or others (mode 1777), so anyone could replace it; move it to a folder you own (such as ~/.local/lib/imagepipe/plugins) and give that path, or put it in IMAGEPIPE_PLUGIN_PATH\n",
                "\(stages.standardError)")
        #expect(stages.standardOutput.contains("  fit ") && !stages.standardOutput.contains("  fake "))
        let run = try CommandRunner.run(["run", "-e", "fit 4x4", "in.png", "-o", "out.png", "-q"], in: directory.path, environment: environment)
        #expect(run.status == 0 && run.standardError.contains("refused: its directory '\(shared)'"), "\(run.standardError)")
        #expect(try Image.load(path: directory.file("out.png")).size == Size(4, 4))
        // In a folder of the user's, the file's own owner refuses it.
        #expect(chmod(shared, 0o755) == 0)
        let owned = try CommandRunner.run(["stages"], environment: environment)
        #expect(owned.standardError == "imagepipe: warning: plugin \(plugin): refused: it belongs to user 65534 (nobody), not to you or root, so they could put code in it\n",
                "\(owned.standardError)")
        #expect(runs(marker).isEmpty, "its constructor never ran")
    }

    @Test func aGroupWritableParentIsRefused() throws {
        let directory = try TemporaryDirectory.forPlugins()
        let marker = directory.file("marker")
        let team = try folder("team", in: directory, mode: 0o775)
        let plugins = try folder("team/plugins", in: directory)
        try FixturePlugin.build("PLAIN", at: plugins + "/p.so")
        let result = try CommandRunner.run(["stages"], environment: ["IMAGEPIPE_PLUGIN_PATH": plugins, "FIXTURE_MARKER": marker])
        #expect(result.status == 0)
        #expect(result.standardError == "imagepipe: warning: plugin \(plugins)/p.so: refused: its directory '\(team)' is writable by group or others (mode 775), so anyone could replace it; chmod go-w '\(team)', or move it to a folder you own\n",
                "\(result.standardError)")
        #expect(runs(marker).isEmpty, "its constructor never ran")
    }

    @Test func theUsersOwnPluginInAClosedFolderLoads() throws {
        let directory = try TemporaryDirectory.forPlugins()
        let marker = directory.file("marker")
        let plugins = try folder("plugins", in: directory)
        try FixturePlugin.build("PLAIN", at: plugins + "/p.so")
        let result = try CommandRunner.run(["stages"], environment: ["IMAGEPIPE_PLUGIN_PATH": plugins, "FIXTURE_MARKER": marker])
        #expect(result.status == 0)
        #expect(result.standardError.isEmpty, "\(result.standardError)")
        #expect(result.standardOutput.contains("  fake "), "\(result.standardOutput)")
        // Once in the scanner's process, once in the command's.
        #expect(runs(marker).count == 2, "\(runs(marker))")
    }
}
