import Foundation
import Testing
import ImagePipe
@testable import ImagePipeCommand
import ImagePipeStages
import TestSupport

/// The stock command loading the sample plugin of Samples/CustomStage at run time, and
/// refusing files that are not good plugins without falling over.
@Suite struct PluginLoadingTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The sample plugin of Samples/CustomStage, a Swift package of its own that `make samples`
    /// builds (minutes: it compiles the framework again); the test that needs it is skipped,
    /// saying so, when it is not there.
    static let samplePlugin = root.appendingPathComponent("Samples/CustomStage/.build/debug/libSepiaPlugin.so").path
    static let samplePluginBuilt = FileManager.default.fileExists(atPath: samplePlugin)

    /// Builds one of the plugins of Tests/Fixtures/fake_plugin.c; those whose stage works
    /// (`gdkPixbuf`) link gdk-pixbuf.
    private func fixture(_ variant: String, in directory: TemporaryDirectory, gdkPixbuf: Bool = false) throws -> String {
        let output = directory.file("\(variant.lowercased()).so")
        try FixturePlugin.build(variant, at: output, gdkPixbuf: gdkPixbuf)
        return output
    }

    @Test(.enabled(if: PluginLoadingTests.samplePluginBuilt, "needs Samples/CustomStage built: run make samples"))
    func stockCommandRunsTheSamplePlugin() throws {
        let plugin = Self.samplePlugin
        let directory = try TemporaryDirectory.forPlugins()
        _ = try directory.write(Synthetic.image(4, 2) { _, _ in Color(red: 100, green: 100, blue: 100) }.encoded(as: .png), to: "in.png")
        let run = try CommandRunner.run(["run", "--plugin", plugin, "-e", "sepia", "in.png", "-o", "out.png"], in: directory.path)
        #expect(run.status == 0, "\(run.standardError)")
        #expect(try Image.load(path: directory.file("out.png")).pixel(x: 0, y: 0) == Color(red: 135, green: 120, blue: 94))

        let stages = try CommandRunner.run(["stages", "sepia", "--plugin=\(plugin)"])
        #expect(stages.standardOutput.contains("plugin: sepia (\(plugin))"))
        let json = try CommandRunner.run(["stages", "--json", "--plugin", plugin])
        #expect(json.standardOutput.contains("\"origin\":\"\(plugin)\""))

        // Located errors and plans work for plugin stages like for any other.
        let typo = try CommandRunner.run(["check", "-e", "sepia amout=3", "--plugin", plugin])
        #expect(typo.status == 2)
        #expect(typo.standardError.hasPrefix("<inline>:1:7: error: sepia: unknown parameter 'amout' (did you mean 'amount'?)"))
        let explain = try CommandRunner.run(["explain", "-e", "sepia 50%", "in.png", "--plugin", plugin], in: directory.path)
        #expect(explain.standardOutput.contains("sepia 50%  4x2 → 4x2"))

        // The vignette's strips cross the interface with their place: streamed, the ordinary run's bytes.
        _ = try directory.write(Synthetic.gradient(80, 150).encoded(as: .tiff), to: "tall.tif")
        let streamed = try CommandRunner.run(["run", "--plugin", plugin, "-e", "vignette", "tall.tif", "-o", "streamed.png"], in: directory.path)
        let ordinary = try CommandRunner.run(["run", "--plugin", plugin, "-e", "vignette", "tall.tif", "-o", "ordinary.png"],
                                             in: directory.path, environment: CommandRunner.wholePictures)
        #expect(streamed.status == 0 && ordinary.status == 0, "\(streamed.standardError)\(ordinary.standardError)")
        let bytes = { (name: String) in try Data(contentsOf: URL(fileURLWithPath: directory.file(name))) }
        #expect(try bytes("streamed.png") == bytes("ordinary.png"))
    }

    /// A stage package depends on ImagePipeCore alone, so its plugin links gdk-pixbuf and GLib
    /// and none of the codecs, colour or network libraries of the whole framework.
    @Test(.enabled(if: PluginLoadingTests.samplePluginBuilt, "needs Samples/CustomStage built: run make samples"))
    func theSamplePluginLinksTheCoreAlone() throws {
        let dynamic = try CommandRunner.runProgram("/usr/bin/readelf", ["-d", Self.samplePlugin])
        #expect(dynamic.status == 0, "\(dynamic.standardError)")
        let needed = dynamic.standardOutput.split(separator: "\n").filter { $0.contains("(NEEDED)") }
            .compactMap { $0.split(separator: "[").last?.dropLast() }.map(String.init)
        let runtime = ["libc.", "libm.", "libdl.", "libpthread.", "librt.", "ld-linux", "libgcc_s.", "libstdc++.",
                       "libswift", "libFoundation", "libdispatch.", "libBlocksRuntime."]
        let beyondRuntime = needed.filter { name in !runtime.contains { name.hasPrefix($0) } }
        #expect(needed.contains { $0.hasPrefix("libgdk_pixbuf-2.0.") }, "\(needed)")
        #expect(beyondRuntime.count <= 10, "\(beyondRuntime)")
        for library in ["libjpeg", "libpng", "libtiff", "libwebp", "libavif", "libheif", "liblcms2", "libsoup", "libpango", "libspng", "libgif"] {
            #expect(!needed.contains { $0.hasPrefix(library) }, "\(library) in \(needed)")
        }
    }

    /// Any number of plugins in one process: two fixtures with stages of their own beside the
    /// sample plugin, given with `--plugin` and through IMAGEPIPE_PLUGIN_PATH, each stage doing
    /// its own work in one pipeline. (Each plugin was once opened by a descriptor number that the
    /// next one reused, and the loader handed the first library back for the second.)
    @Test(.enabled(if: PluginLoadingTests.samplePluginBuilt, "needs Samples/CustomStage built: run make samples"))
    func threePluginsWorkInOneRun() throws {
        let directory = try TemporaryDirectory.forPlugins()
        try FileManager.default.createDirectory(atPath: directory.file("plugins"), withIntermediateDirectories: true)
        #expect(chmod(directory.file("plugins"), 0o755) == 0)
        try FixturePlugin.build("POINT", at: directory.file("plugins/libinverter.so"), gdkPixbuf: true, plugin: "inverter", stage: "inverse")
        try FixturePlugin.build("AREA", at: directory.file("plugins/libsmoother.so"), gdkPixbuf: true, plugin: "smoother", stage: "smooth")
        _ = try directory.write(Synthetic.image(4, 3) { _, y in y == 1 ? Color(red: 90, green: 90, blue: 90) : Color(red: 0, green: 0, blue: 0) }
            .encoded(as: .png), to: "in.png")
        let pipeline = "sepia | inverse | smooth"
        let byFlags = try CommandRunner.run(["run", "--plugin", Self.samplePlugin, "--plugin", directory.file("plugins/libinverter.so"),
                                             "--plugin", directory.file("plugins/libsmoother.so"), "-e", pipeline, "in.png", "-o", "flags.png"],
                                            in: directory.path)
        #expect(byFlags.status == 0, "\(byFlags.standardError)")
        #expect(byFlags.standardError.isEmpty, "\(byFlags.standardError)")
        let byPath = try CommandRunner.run(["run", "--plugin", Self.samplePlugin, "-e", pipeline, "in.png", "-o", "path.png"],
                                           in: directory.path, environment: ["IMAGEPIPE_PLUGIN_PATH": directory.file("plugins")])
        #expect(byPath.status == 0, "\(byPath.standardError)")
        // Black stays black in sepia and the grey row becomes `toned`; inverted, white and
        // 255 − toned; smoothed with the white rows on either side, (766 − toned) / 3 in both.
        let sepiaAlone = try CommandRunner.run(["run", "--plugin", Self.samplePlugin, "-e", "sepia", "in.png", "-o", "sepia.png"], in: directory.path)
        #expect(sepiaAlone.status == 0, "\(sepiaAlone.standardError)")
        let toned = try Image.load(path: directory.file("sepia.png")).pixel(x: 0, y: 1)
        #expect(toned != Color(red: 90, green: 90, blue: 90))
        let smoothed = { (level: UInt8) in UInt8((766 - Int(level)) / 3) }
        let expected = Color(red: smoothed(toned.red), green: smoothed(toned.green), blue: smoothed(toned.blue))
        for name in ["flags.png", "path.png"] {
            let output = try Image.load(path: directory.file(name))
            #expect(output.pixel(x: 0, y: 0) == expected, "\(name)")
            #expect(output.pixel(x: 2, y: 1) == expected, "\(name)")
        }
        let stages = try CommandRunner.run(["stages", "--plugin", Self.samplePlugin], environment: ["IMAGEPIPE_PLUGIN_PATH": directory.file("plugins")])
        #expect(stages.standardError.isEmpty, "\(stages.standardError)")
        for stage in ["sepia", "inverse", "smooth"] {
            #expect(stages.standardOutput.contains("  \(stage) "), "\(stages.standardOutput)")
        }
    }

    /// The embedding API loads any number of plugins into one registry too.
    @Test func theAPILoadsSeveralPlugins() throws {
        let directory = try TemporaryDirectory.forPlugins()
        let paths = try ["one", "two", "three"].map { name in
            let path = directory.file("lib\(name).so")
            try FixturePlugin.build("POINT", at: path, gdkPixbuf: true, plugin: "plugin-\(name)", stage: "stage-\(name)")
            return path
        }
        var registry = Registry()
        for path in paths { try registry.loadPlugin(at: path) }
        #expect(registry.plugins.map(\.name) == ["plugin-one", "plugin-two", "plugin-three"])
        #expect(Set(registry.stageNames) == ["stage-one", "stage-two", "stage-three"])
        // The same file again is the same library: its stages are already there.
        #expect(throws: PluginLoadError.self) { try registry.loadPlugin(at: paths[0]) }
    }

    @Test func pluginDirectoriesFromTheEnvironment() throws {
        let directory = try TemporaryDirectory.forPlugins()
        try FileManager.default.createDirectory(atPath: directory.file("plugins"), withIntermediateDirectories: true)
        #expect(chmod(directory.file("plugins"), 0o755) == 0)
        try FixturePlugin.build("PLAIN", at: directory.file("plugins/libfixture.so"))
        let result = try CommandRunner.run(["stages"], environment: ["IMAGEPIPE_PLUGIN_PATH": "/nonexistent:" + directory.file("plugins")])
        #expect(result.status == 0)
        #expect(result.standardOutput.contains("  fake "))
        #expect(result.standardError.contains("IMAGEPIPE_PLUGIN_PATH: cannot read directory '/nonexistent'"))
    }

    @Test func refusalsNameTheFileAndTheRestWorks() throws {
        let directory = try TemporaryDirectory.forPlugins()
        let notELF = try directory.write("definitely not a library", to: "notes.so")
        let cases: [(String, String)] = [
            (notELF, "cannot be loaded: "),
            (try fixture("NO_ENTRY", in: directory), "not an ImagePipe plugin: it has no imagepipe_plugin_entry function"),
            (try fixture("WRONG_VERSION", in: directory), "built for plugin interface 999; this imagepipe loads interface 3"),
            (try fixture("OLD_V1", in: directory), "built for plugin interface 1; this imagepipe loads interface 3"),
            (try fixture("V2", in: directory), "built for plugin interface 2; this imagepipe loads interface 3"),
            (try fixture("SHORT_TABLE", in: directory), "its function table is 64 bytes, shorter than the 72 this imagepipe calls; rebuild it against this imagepipe's imagepipe_plugin.h"),
            (try fixture("FAILS", in: directory), "failed while registering: the licence server cannot be reached"),
            (try fixture("CLASH", in: directory), "plugin 'fixture': stage 'fit' is already defined by plugin 'fit-zoom'"),
            (try fixture("NO_SCHEMA_VERSION", in: directory), "its description has no schemaVersion; this imagepipe reads version 1"),
            (try fixture("FUTURE_SCHEMA", in: directory), "its description has schemaVersion 2; this imagepipe reads version 1"),
            (try fixture("RENAMED_KEY", in: directory), "stage 'fake': parameter 'level' has an unknown key 'defualt'"),
            (try fixture("HUGE_COUNT", in: directory), "stage 'fake': parameter 'weights' has a count that is not two whole numbers from 1 to 65536, the lower first"),
            (directory.file("missing.so"), "cannot be loaded: "),
        ]
        for (path, reason) in cases {
            let result = try CommandRunner.run(["stages", "--plugin", path])
            #expect(result.status == 0, "\(path)")
            #expect(result.standardError.hasPrefix("imagepipe: warning: plugin \(path): \(reason)"), "\(result.standardError)")
            #expect(result.standardOutput.contains("  fit "), "the stock stages still work after \(path)")
        }
    }

    /// A plugin built against a later table (one more field at the end, same interface version)
    /// loads in this command, which calls only the fields it knows.
    @Test func aNewerPluginLoadsInAnOlderCommand() throws {
        let directory = try TemporaryDirectory.forPlugins()
        let plugin = try fixture("LONGER_TABLE", in: directory)
        let result = try CommandRunner.run(["stages", "fake", "--plugin", plugin])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardError.isEmpty, "\(result.standardError)")
        #expect(result.standardOutput.contains("usage: fake [level=1]") && result.standardOutput.contains("plugin: fixture (\(plugin))"), "\(result.standardOutput)")
    }

    /// What a plugin's stage decided from the pixels (make_rows' `notes`) reaches `run --json` as
    /// a compiled stage's notes do; a table that ends before the optional fields (shrink, survey,
    /// warp) loads and runs, and a stage that notes nothing adds no note.
    @Test func aPluginsNotesReachTheRunsJSON() throws {
        let directory = try TemporaryDirectory.forPlugins()
        _ = try directory.write(Synthetic.gradient(6, 4).encoded(as: .png), to: "in.png")
        for (variant, noted) in [("NOTES", true), ("BEFORE_OPTIONAL", false)] {
            let plugin = try fixture(variant, in: directory, gdkPixbuf: true)
            // Streamed (the whole stage behind its gathering level) and on whole pictures alike.
            for environment in [[:], CommandRunner.wholePictures] {
                let run = try CommandRunner.run(["run", "--json", "--plugin", plugin, "-e", "fake", "in.png", "-o", "out-\(variant).png"],
                                                in: directory.path, environment: environment)
                #expect(run.status == 0, "\(variant): \(run.standardError)")
                #expect(run.standardOutput.contains("\"text\":\"copied by the fixture\"") == noted, "\(variant) \(environment): \(run.standardOutput)")
            }
            #expect(try Image.load(path: directory.file("out-\(variant).png")).size == Size(6, 4))
        }
    }

    /// A plugin's stage works in the run's context (given with every make_rows): its scaling mode and pixel
    /// limit, and a time limit that stops its own long loop rather than waiting for it.
    @Test func aPluginsStageWorksInTheRunsContext() throws {
        let directory = try TemporaryDirectory.forPlugins()
        let plugin = try fixture("CONTEXT", in: directory, gdkPixbuf: true)
        _ = try directory.write(Synthetic.gradient(6, 4).encoded(as: .png), to: "in.png")
        let run = try CommandRunner.run(["run", "--json", "--plugin", plugin, "--scaling", "fast", "--max-pixels", "5000000",
                                         "-e", "fake", "in.png", "-o", "out.png"], in: directory.path)
        #expect(run.status == 0, "\(run.standardError)")
        #expect(run.standardOutput.contains(#""value":[0,5000000]"#), "\(run.standardOutput)")
        let plain = try CommandRunner.run(["run", "--json", "--plugin", plugin, "-e", "fake", "in.png", "-o", "plain.png"], in: directory.path)
        #expect(plain.standardOutput.contains(#""value":[1,"#), "good by default: \(plain.standardOutput)")

        // On a picture one pixel wide the fixture works until the run says stop (or 20 s).
        _ = try directory.write(Synthetic.gradient(1, 4).encoded(as: .png), to: "thin.png")
        let clock = ContinuousClock(), start = clock.now
        let stopped = try CommandRunner.run(["run", "--plugin", plugin, "--timeout", "1", "-e", "fake", "thin.png", "-o", "thin-out.png"],
                                            in: directory.path)
        #expect(clock.now - start < .seconds(10), "the stage stopped at the time limit, not after its 20 s")
        #expect(stopped.status != 0)
        #expect(stopped.standardError.contains("--timeout"), "\(stopped.standardError)")
        #expect(!FileManager.default.fileExists(atPath: directory.file("thin-out.png")))
    }

    /// What a plugin's stage promises crosses the interface (`traits`, `plan`'s explanation): a point
    /// stage streams as a compiled one does, to the ordinary run's bytes; a stage whose planned
    /// size is only the largest it gives (trim-like) runs instead of failing as a broken plan.
    @Test func aPluginsStagePromisesWhatACompiledOneDoes() throws {
        let directory = try TemporaryDirectory.forPlugins()
        _ = try directory.write(Synthetic.gradient(64, 40).encoded(as: .jpeg), to: "in.jpg")
        let point = try fixture("POINT", in: directory, gdkPixbuf: true)
        let explained = try CommandRunner.run(["explain", "--plugin", point, "-e", "fake", "in.jpg", "-o", "out.jpg"], in: directory.path)
        #expect(explained.standardOutput.contains("streamed: 32 rows at a time"), "\(explained.standardOutput)")
        #expect(explained.standardOutput.contains("at most 64x40, less what the border takes"), "\(explained.standardOutput)")
        let streamed = try CommandRunner.run(["run", "--plugin", point, "-e", "fake", "in.jpg", "-o", "streamed.jpg"], in: directory.path)
        let ordinary = try CommandRunner.run(["run", "--plugin", point, "-e", "fake", "in.jpg", "-o", "ordinary.jpg"],
                                             in: directory.path, environment: CommandRunner.wholePictures)
        #expect(streamed.status == 0 && ordinary.status == 0, "\(streamed.standardError) \(ordinary.standardError)")
        let bytes = { (name: String) in try Data(contentsOf: URL(fileURLWithPath: directory.file(name))) }
        #expect(try bytes("streamed.jpg") == bytes("ordinary.jpg"))
        let source = try Image.load(path: directory.file("in.jpg")).pixel(x: 10, y: 10)
        let inverted = try Image.load(path: directory.file("streamed.jpg")).pixel(x: 10, y: 10)
        #expect(Synthetic.close(inverted, Color(red: 255 - source.red, green: 255 - source.green, blue: 255 - source.blue), tolerance: 8))

        // An area stage streams too, on windows of rows around each strip: a picture taller than
        // a strip, the same bytes as the whole picture at once, and rows really averaged.
        let stripes = try Image.make(size: Size(48, 200), hasAlpha: false) { writer in
            for y in 0..<200 {
                let row = writer.row(y)
                for i in row.indices { row[i] = (y / 4) % 2 == 0 ? 0 : 255 }
            }
        }
        _ = try directory.write(stripes.encoded(as: .jpeg, options: SaveOptions(quality: 98)), to: "tall.jpg")
        let area = try fixture("AREA", in: directory, gdkPixbuf: true)
        let areaPlan = try CommandRunner.run(["explain", "--plugin", area, "-e", "fake", "tall.jpg", "-o", "out.jpg"], in: directory.path)
        #expect(areaPlan.standardOutput.contains("area stage: each strip from 1 row above and below"), "\(areaPlan.standardOutput)")
        let areaStreamed = try CommandRunner.run(["run", "--plugin", area, "-e", "fake", "tall.jpg", "-o", "area-streamed.jpg"], in: directory.path)
        let areaWhole = try CommandRunner.run(["run", "--plugin", area, "-e", "fake", "tall.jpg", "-o", "area-whole.jpg"],
                                              in: directory.path, environment: CommandRunner.wholePictures)
        #expect(areaStreamed.status == 0 && areaWhole.status == 0, "\(areaStreamed.standardError) \(areaWhole.standardError)")
        #expect(try bytes("area-streamed.jpg") == bytes("area-whole.jpg"))
        // Row 3, the last black one before white rows: (0 + 0 + 255) / 3 once averaged.
        #expect(try Image.load(path: directory.file("tall.jpg")).pixel(x: 20, y: 3).red < 20)
        #expect(try (70...100).contains(Image.load(path: directory.file("area-streamed.jpg")).pixel(x: 20, y: 3).red))

        let trim = try fixture("TRIM", in: directory, gdkPixbuf: true)
        let trimmed = try CommandRunner.run(["run", "--plugin", trim, "-e", "fake", "in.jpg", "-o", "trimmed.png"], in: directory.path)
        #expect(trimmed.status == 0, "\(trimmed.standardError)")
        #expect(try Image.load(path: directory.file("trimmed.png")).size == Size(62, 38))
        // A whole stage (a plugin that promises nothing) is given the whole picture, gathered before it.
        let plain = try fixture("NOTES", in: directory, gdkPixbuf: true)
        let whole = try CommandRunner.run(["explain", "--plugin", plain, "-e", "fake", "in.jpg", "-o", "out.jpg"], in: directory.path)
        #expect(whole.standardOutput.contains("whole stage: the picture before it gathered"), "\(whole.standardOutput)")
    }

    /// A stage that adds alpha says so in its traits: its rows are RGBA from there on, and the
    /// run streams into a PNG, the same bytes as the whole picture at once.
    @Test func aPluginsStageThatAddsAlphaStreamsRGBARows() throws {
        let directory = try TemporaryDirectory.forPlugins()
        _ = try directory.write(Synthetic.gradient(64, 90).encoded(as: .jpeg), to: "in.jpg")
        let plugin = try fixture("FADE", in: directory, gdkPixbuf: true)
        let bytes = { (name: String) in try Data(contentsOf: URL(fileURLWithPath: directory.file(name))) }
        let plan = try CommandRunner.run(["explain", "--plugin", plugin, "-e", "fake | blur 1", "in.jpg", "-o", "out.png"], in: directory.path)
        #expect(plan.standardOutput.contains("streamed: 32 rows at a time"), "\(plan.standardOutput)")
        let streamed = try CommandRunner.run(["run", "--plugin", plugin, "-e", "fake | blur 1", "in.jpg", "-o", "streamed.png"], in: directory.path)
        let whole = try CommandRunner.run(["run", "--plugin", plugin, "-e", "fake | blur 1", "in.jpg", "-o", "whole.png"],
                                          in: directory.path, environment: CommandRunner.wholePictures)
        #expect(streamed.status == 0 && whole.status == 0, "\(streamed.standardError) \(whole.standardError)")
        #expect(try bytes("streamed.png") == bytes("whole.png"))
        let made = try Image.load(path: directory.file("streamed.png"))
        #expect(made.hasAlpha && made.pixel(x: 0, y: 45).alpha < 40 && made.pixel(x: 60, y: 45).alpha > 200,
                "\(made.pixel(x: 0, y: 45)) \(made.pixel(x: 60, y: 45))")
    }

    /// Strips and windows cross the interface with their place in the picture (make_rows' `top`):
    /// a position-dependent point stage (a vignette) streams with no bands, and a resample stage
    /// (every other row) streams from the windows it names (`input_rows`), both to the bytes of
    /// the whole picture at once.
    @Test func aPluginsStageKnowsWhereItsRowsLie() throws {
        let directory = try TemporaryDirectory.forPlugins()
        let flat = try Image.filled(Color(red: 200, green: 200, blue: 200), size: Size(64, 150), hasAlpha: false)
        _ = try directory.write(flat.encoded(as: .tiff), to: "flat.tif")
        let bytes = { (name: String) in try Data(contentsOf: URL(fileURLWithPath: directory.file(name))) }
        for (variant, planned) in [("VIGNETTE", Size(64, 150)), ("HALF", Size(64, 75))] {
            let plugin = try fixture(variant, in: directory, gdkPixbuf: true)
            let plan = try CommandRunner.run(["explain", "--plugin", plugin, "-e", "fake", "flat.tif", "-o", "out.png"], in: directory.path)
            #expect(plan.standardOutput.contains("streamed: 32 rows at a time"), "\(variant): \(plan.standardOutput)")
            let streamed = try CommandRunner.run(["run", "--plugin", plugin, "-e", "fake", "flat.tif", "-o", "\(variant)-streamed.png"],
                                                 in: directory.path)
            let whole = try CommandRunner.run(["run", "--plugin", plugin, "-e", "fake", "flat.tif", "-o", "\(variant)-whole.png"],
                                              in: directory.path, environment: CommandRunner.wholePictures)
            #expect(streamed.status == 0 && whole.status == 0, "\(streamed.standardError) \(whole.standardError)")
            #expect(try bytes("\(variant)-streamed.png") == bytes("\(variant)-whole.png"), "\(variant)")
            let made = try Image.load(path: directory.file("\(variant)-streamed.png"))
            #expect(made.size == planned)
            if variant == "VIGNETTE" {
                // Darkest at the corners, lightest at the center, and even across the strips' seams:
                // rows 31 and 32 lie as far from the center as rows 118 and 117.
                #expect(made.pixel(x: 0, y: 0).red < made.pixel(x: 32, y: 75).red)
                #expect(made.pixel(x: 32, y: 31) == made.pixel(x: 32, y: 118) && made.pixel(x: 32, y: 32) == made.pixel(x: 32, y: 117))
            }
        }
    }

    /// A resample stage whose `input_rows` answers a negative count is refused with the plugin's
    /// lie named, in `explain` and `run`; it once trapped the host making a range of it.
    @Test func aNegativeRowCountIsRefused() throws {
        let directory = try TemporaryDirectory.forPlugins()
        let plugin = try fixture("NEGATIVE_ROWS", in: directory, gdkPixbuf: true)
        _ = try directory.write(Image.filled(Color(red: 9, green: 9, blue: 9), size: Size(64, 150), hasAlpha: false).encoded(as: .tiff), to: "flat.tif")
        let explain = try CommandRunner.run(["explain", "--plugin", plugin, "-e", "fake", "flat.tif", "-o", "out.png"], in: directory.path)
        #expect(explain.status < 2, "\(explain.status) \(explain.standardError)")
        let run = try CommandRunner.run(["run", "--plugin", plugin, "-e", "fake", "flat.tif", "-o", "out.png"], in: directory.path)
        #expect(run.status == 1, "\(run.status) \(run.standardError)")
        #expect(run.standardError.contains("the plugin named input rows 0 to -6"), "\(run.standardError)")
        #expect(!FileManager.default.fileExists(atPath: directory.file("out.png")))
    }

    /// A plugin parameter of path kind names a file the run reads: no output may replace it
    /// (it could, when only compiled stages' files were known), as with `composite`'s overlay.
    @Test func aPluginsPathParameterIsAFileTheRunReads() throws {
        let directory = try TemporaryDirectory.forPlugins()
        let plugin = try fixture("PATH_PARAMETER", in: directory, gdkPixbuf: true)
        _ = try directory.write(Synthetic.gradient(8, 8).encoded(as: .png), to: "in.png")
        let kept = try directory.write(Synthetic.gradient(4, 4).encoded(as: .png), to: "keep.png")
        let before = try Data(contentsOf: URL(fileURLWithPath: kept))
        let replacing = try CommandRunner.run(["run", "--plugin", plugin, "-e", "fake file=keep.png", "in.png", "-o", "./keep.png"], in: directory.path)
        #expect(replacing.status == 2, "\(replacing.standardError)")
        #expect(replacing.standardError.contains("is the input file 'keep.png'"), "\(replacing.standardError)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: kept)) == before)
        let elsewhere = try CommandRunner.run(["run", "--plugin", plugin, "-e", "fake file=keep.png", "in.png", "-o", "out.png"], in: directory.path)
        #expect(elsewhere.status == 0, "\(elsewhere.standardError)")
    }

    /// `serve --plugin` answered an address whose plugin stage named `/etc/shadow`: a path
    /// parameter is a file read, refused in an address as a `composite` overlay is.
    @Test func theServiceRefusesAPluginsPathParameter() throws {
        let directory = try TemporaryDirectory.forPlugins()
        let plugin = try fixture("PATH_PARAMETER", in: directory, gdkPixbuf: true)
        var registry = StandardPlugins.registry
        try registry.loadPlugin(at: plugin)
        let compiler = PipelineCompiler(registry: registry)
        let error = #expect(throws: ServeError.self) { try ServeServer.servedPipeline("fake file=/etc/shadow", compiler: compiler) }
        #expect(error?.status == 400)
        #expect(throws: Never.self) { try ServeServer.servedPipeline("fake", compiler: compiler) }
    }

    /// The public API took `"schemaVersion": 1e300` through `Int(_:)`, which traps: an
    /// embedder's process died where the command's scanner process took the hit.
    @Test func anAbsurdSchemaVersionIsRefusedByTheAPI() throws {
        let directory = try TemporaryDirectory.forPlugins()
        let plugin = try fixture("HUGE_SCHEMA", in: directory)
        var registry = Registry()
        let error = #expect(throws: PluginLoadError.self) { try registry.loadPlugin(at: plugin) }
        #expect(String(describing: error).contains("this imagepipe reads version 1"), "\(String(describing: error))")
    }

    @Test func aPluginLoadedTwiceIsRefusedTheSecondTime() throws {
        let directory = try TemporaryDirectory.forPlugins()
        let plugin = try fixture("PLAIN", in: directory)
        let result = try CommandRunner.run(["stages", "--plugin", plugin, "--plugin", plugin])
        #expect(result.status == 0)
        #expect(result.standardError == "imagepipe: warning: plugin \(plugin): plugin 'fixture': stage 'fake' is already defined by plugin 'fixture'\n")
    }
}
