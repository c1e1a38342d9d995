import Foundation
import Testing
import ImagePipe
import ImagePipeStages
import TestSupport

/// What a plugin declares is checked when it loads, for a C plugin and for stages registered
/// through `Registry` alike: names a pipeline can hold and a terminal can show, no stock stage's
/// name nor a synonym of one, a point stage that keeps the size, and the plugin's own reason when
/// it stops while it loads.
@Suite struct PluginDeclarationTests {
    /// Builds the fixture `variant` with these C string macros (JSON text) in `directory` and asks
    /// `stages` to load it.
    private func stagesLoading(_ variant: String = "PLAIN", stage: String? = nil, strings: [String: String] = [:],
                               in directory: TemporaryDirectory) throws -> (plugin: String, result: CommandRunner.Result) {
        let plugin = directory.file("declared.so")
        try FixturePlugin.build(variant, at: plugin, stage: stage, strings: strings)
        return (plugin, try CommandRunner.run(["stages", "--plugin", plugin]))
    }

    /// Nothing a terminal obeys: ESC, BEL, the other C0 and C1 controls, the bidirectional overrides.
    private func isPlain(_ text: String) -> Bool {
        !text.unicodeScalars.contains { ($0.value < 0x20 && $0 != "\n") || (0x7F...0x9F).contains($0.value) || (0x202A...0x202E).contains($0.value) || (0x2066...0x2069).contains($0.value) }
    }

    @Test(arguments: [
        ("a b", "stage 'a b' is not lower-kebab-case"),
        ("fit|crop", "stage 'fit|crop' is not lower-kebab-case"),
        ("x{", "stage 'x{' is not lower-kebab-case"),
        ("Sepia", "stage 'Sepia' is not lower-kebab-case"),
        ("fit--zoom", "stage 'fit--zoom' is not lower-kebab-case"),
        (#"red\\u001b[31m"#, #"stage 'red\u{1b}[31m' is not lower-kebab-case"#),
        (#"gpj.\\u202eexe"#, #"stage 'gpj.\u{202e}exe' is not lower-kebab-case"#),
        (String(repeating: "a", count: 100_000), "stage '\(String(repeating: "a", count: 64))…' is 100000 bytes long; the most is 64"),
        ("scale", "plugin 'fixture': stage 'scale' is a documented synonym of 'resize' (the word that leads people to it); choose another name"),
        ("gray", "plugin 'fixture': stage 'gray' is a documented synonym of 'grayscale' (the word that leads people to it); choose another name"),
    ])
    func stageNamesAreCheckedWhenThePluginLoads(name: String, reason: String) throws {
        let (plugin, result) = try stagesLoading(stage: name, in: TemporaryDirectory.forPlugins())
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardError == "imagepipe: warning: plugin \(plugin): \(reason)\n", "\(result.standardError.prefix(300))")
        #expect(isPlain(result.standardOutput) && isPlain(result.standardError))
        #expect(result.standardOutput.contains("  fit ") && !result.standardOutput.contains("  fake "), "the stock stages, not the plugin's")
    }

    @Test(arguments: [
        ("", "stage 'fake': parameter '' is empty"),
        ("a=b", "stage 'fake': parameter 'a=b' is not lower-kebab-case"),
        ("a b", "stage 'fake': parameter 'a b' is not lower-kebab-case"),
        (#"bell\\u0007"#, #"stage 'fake': parameter 'bell\u{7}' is not lower-kebab-case"#),
        (#"\\u202eleft"#, #"stage 'fake': parameter '\u{202e}left' is not lower-kebab-case"#),
    ])
    func parameterNamesAreCheckedWhenThePluginLoads(name: String, reason: String) throws {
        let (plugin, result) = try stagesLoading(strings: ["PARAMETER_NAME": name], in: TemporaryDirectory.forPlugins())
        #expect(result.standardError == "imagepipe: warning: plugin \(plugin): \(reason)\n", "\(result.standardError)")
        #expect(isPlain(result.standardOutput))
    }

    /// A plugin's summaries and help are listed with their control characters shown as escapes.
    @Test func stagesPrintsNoEscapeOfAPlugin() throws {
        let strings = ["STAGE_SUMMARY": #"\\u001b]0;owned\\u0007 tones"#, "PARAMETER_HELP": #"\\u202eevil \\u009b2J"#]
        let directory = try TemporaryDirectory.forPlugins()
        let (plugin, listing) = try stagesLoading(strings: strings, in: directory)
        #expect(listing.status == 0 && listing.standardError.isEmpty, "\(listing.standardError)")
        #expect(listing.standardOutput.contains(#"  fake "#) && listing.standardOutput.contains(#"\x1b]0;owned\x07 tones"#), "\(listing.standardOutput)")
        #expect(isPlain(listing.standardOutput))
        let help = try CommandRunner.run(["stages", "fake", "--plugin", plugin])
        #expect(help.status == 0 && help.standardOutput.contains(#"\u{202e}evil \x9b2J"#), "\(help.standardOutput)")
        #expect(isPlain(help.standardOutput))
    }

    /// The same rules hold for stages registered through the API, compiled in.
    @Test func theRegistryAPIChecksTheSameRules() throws {
        func plugin(stage: String, parameter: String = "level") -> Plugin {
            let schema = Schema(name: stage, summary: "", parameters: [Parameter(parameter, .integer(0...9), help: "")])
            return Plugin(name: "mine", summary: "", definitions: [StageDefinition(schema: schema) { _ in throw StageError("unused") }])
        }
        let cases: [(Plugin, String)] = [
            (plugin(stage: "two words"), "plugin 'mine': stage 'two words' is not lower-kebab-case"),
            (plugin(stage: "\u{1b}[2J"), #"plugin 'mine': stage '\u{1b}[2J' is not lower-kebab-case"#),
            (plugin(stage: "scale"), "plugin 'mine': stage 'scale' is a documented synonym of 'resize' (the word that leads people to it); choose another name"),
            (plugin(stage: "fit"), "plugin 'mine': stage 'fit' is already defined by plugin 'fit-zoom'"),
            (plugin(stage: "mine", parameter: "a=b"), "plugin 'mine': stage 'mine' has a parameter 'a=b' whose name is not lower-kebab-case"),
            (plugin(stage: "mine", parameter: ""), "plugin 'mine': stage 'mine' has a parameter '' whose name is empty"),
        ]
        for (refused, message) in cases {
            var registry = Registry(plugins: StandardPlugins.all)
            let error = try #require(throws: RegistryError.self) { try registry.register(refused) }
            #expect(error.description == message)
            #expect(registry.plugins.count == StandardPlugins.all.count, "nothing of a refused plugin is registered")
        }
        var registry = Registry(plugins: StandardPlugins.all)
        try registry.register(plugin(stage: "mine-2x"))
        #expect(registry.entry(named: "mine-2x") != nil)
    }

    /// Every stage the command has, and every parameter, follows the rule it holds plugins to.
    @Test func theStockStagesFollowTheRules() {
        let registry = Registry(plugins: StandardPlugins.all)
        for name in registry.stageNames {
            #expect(DeclaredName.problem(name) == nil && StageSynonyms.table[name] == nil, "\(name)")
            for parameter in registry.entry(named: name)?.schema.parameters ?? [] {
                #expect(DeclaredName.problem(parameter.name) == nil, "\(name): \(parameter.name)")
            }
        }
    }

    /// A point stage that plans another size than its input's is refused by both runs, with the
    /// same words: the streamed run once wrote it at the input's size and exited 0.
    @Test func aPointStageThatChangesTheSizeIsRefusedByBothRuns() throws {
        let directory = try TemporaryDirectory.forPlugins()
        let plugin = directory.file("resizes.so")
        try FixturePlugin.build("POINT_RESIZES", at: plugin, gdkPixbuf: true)
        _ = try directory.write(Synthetic.gradient(80, 150).encoded(as: .tiff), to: "tall.tif")
        let message = "says it is a point stage, whose output is its input's size, yet plans 40x150 from 80x150 (a bug in the stage)"
        var errors: [String] = []
        for (name, environment) in [("streamed", [String: String]()), ("ordinary", CommandRunner.wholePictures)] {
            let run = try CommandRunner.run(["run", "--plugin", plugin, "-e", "fake", "tall.tif", "-o", "\(name).png"], in: directory.path,
                                            environment: environment)
            #expect(run.status == 1, "\(name): \(run.standardError)")
            #expect(run.standardError.contains("fake: \(message)"), "\(name): \(run.standardError)")
            #expect(!FileManager.default.fileExists(atPath: directory.file("\(name).png")), "\(name)")
            errors.append(run.standardError)
        }
        #expect(errors[0] == errors[1])
        let explain = try CommandRunner.run(["explain", "--plugin", plugin, "-e", "fake", "tall.tif"], in: directory.path)
        #expect(explain.status == 1 && explain.standardError.contains(message), "\(explain.standardError)")
    }

    /// A Swift plugin whose declaration is broken stops the scanner with the runtime's message on
    /// standard error; the command shows that reason, not only the signal.
    @Test func theScannerShowsThePluginsOwnReason() throws {
        let (plugin, result) = try stagesLoading("DECLARATION_TRAP", in: TemporaryDirectory.forPlugins())
        guard !CommandRunner.binary.contains("/.build/tsan/") else { return }
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardError == "imagepipe: warning: plugin \(plugin): crashed while loading (signal \(SIGILL)): stage 'fake': parameter 'level': default nan is refused by its own type: expected a number; it was tried in a separate process first, so the command goes on without it\n",
                "\(result.standardError)")
        #expect(result.standardOutput.contains("  fit "))
    }
}
