import Foundation
import Testing
import ImagePipe
import TestSupport

/// A plugin that crashes while it loads is tried in a separate process first: the crash takes
/// down that process only, the plugin is refused, and the command goes on with the rest.
@Suite struct PluginScannerTests {
    @Test(arguments: ["CRASH_IN_CONSTRUCTOR", "CRASH_IN_ENTRY"])
    func aPluginThatCrashesWhileLoadingIsRefused(variant: String) throws {
        let directory = try TemporaryDirectory.forPlugins()
        let plugin = directory.file("crash.so")
        try FixturePlugin.build(variant, at: plugin)
        let good = directory.file("good.so")
        try FixturePlugin.build("PLAIN", at: good)
        // Under ThreadSanitizer (`make sanitize`) its runtime catches the fault and the child
        // exits 66 instead of dying of the signal: refused all the same, in other words.
        let refusal = CommandRunner.binary.contains("/.build/tsan/")
            ? "imagepipe: warning: plugin \(plugin): cannot be scanned: the separate process that tried it exited with status 66 and no result\n"
            : "imagepipe: warning: plugin \(plugin): crashed while loading (signal \(SIGSEGV)); it was tried in a separate process first, so the command goes on without it\n"

        let stages = try CommandRunner.run(["stages", "--plugin", plugin, "--plugin", good])
        #expect(stages.status == 0, "\(stages.standardError)")
        #expect(stages.standardError == refusal, "\(stages.standardError)")
        #expect(stages.standardOutput.contains("  fit ") && stages.standardOutput.contains("  fake "), "the stock stages and the good plugin still work")

        _ = try directory.write(Synthetic.gradient(8, 6).encoded(as: .png), to: "in.png")
        let run = try CommandRunner.run(["run", "--plugin", plugin, "-e", "fit 4x4", "in.png", "-o", "out.png", "-q"], in: directory.path)
        #expect(run.status == 0, "\(run.standardError)")
        #expect(run.standardError == refusal, "\(run.standardError)")
        #expect(try Image.load(path: directory.file("out.png")).size == Size(4, 3))
    }

    /// The child itself, as the command runs it: one line of JSON, the stages it found.
    @Test func theScannerPrintsWhatItFound() throws {
        let directory = try TemporaryDirectory.forPlugins()
        let plugin = directory.file("p.so")
        try FixturePlugin.build("PLAIN", at: plugin)
        let found = try CommandRunner.run(["__scan-plugin", plugin])
        #expect(found.status == 0 && found.standardOutput == "{\"name\":\"fixture\",\"stages\":[\"fake\"]}\n", "\(found.standardOutput)")
        try FixturePlugin.build("WRONG_VERSION", at: plugin)
        let refused = try CommandRunner.run(["__scan-plugin", plugin])
        #expect(refused.standardOutput == "{\"refused\":\"built for plugin interface 999; this imagepipe loads interface 3\"}\n", "\(refused.standardOutput)")
    }
}
