import Foundation
import Testing
import ImagePipe
import TestSupport

@Suite struct RunCommandTests {
    @Test func convertsAPicture() throws {
        let directory = try TemporaryDirectory()
        let input = try directory.write(Synthetic.gradient(40, 30).encoded(as: .jpeg), to: "photo.jpg")
        let result = try CommandRunner.run(["run", "-e", "load | save", input, "-o", directory.file("out.png")])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardError.isEmpty)
        let output = try Image.load(path: directory.file("out.png"))
        #expect(output.size == Size(40, 30))
        #expect(try directory.contents() == ["out.png", "photo.jpg"])
    }

    @Test func runsAPipelineFile() throws {
        let directory = try TemporaryDirectory()
        _ = try directory.write(Synthetic.gradient(40, 30).encoded(as: .png), to: "in.png")
        _ = try directory.write("# convert to JPEG\nload\nsave quality=80\n", to: "convert.pipe")
        let result = try CommandRunner.run(["run", "convert.pipe", "in.png", "-o", "out.jpg"], in: directory.path)
        #expect(result.status == 0, "\(result.standardError)")
        #expect(try ImageHeader.read(path: directory.file("out.jpg")).format == .jpeg)
    }

    @Test func typoGivesLocatedErrorWithSuggestionAndStatus2() throws {
        let directory = try TemporaryDirectory()
        _ = try directory.write("load\nsave qualty=80\n", to: "bad.pipe")
        let result = try CommandRunner.run(["run", "bad.pipe", "in.png", "-o", "out.png"], in: directory.path)
        #expect(result.status == 2)
        #expect(result.standardError == """
            bad.pipe:2:6: error: save: unknown parameter 'qualty' (did you mean 'quality'?)
                save qualty=80
                     ^~~~~~

            """)
        #expect(try directory.contents() == ["bad.pipe"])
    }

    @Test func processingErrorGivesStatus1AndNoOutput() throws {
        let directory = try TemporaryDirectory()
        _ = try directory.write("not a picture", to: "fake.png")
        let result = try CommandRunner.run(["run", "-e", "", "fake.png", "-o", "out.png"], in: directory.path)
        #expect(result.status == 1)
        #expect(result.standardError == "imagepipe: fake.png: unsupported format: not a picture format ImagePipe recognizes by its first bytes\n")
        #expect(try directory.contents() == ["fake.png"])
    }

    @Test func unwritableOutput() throws {
        let directory = try TemporaryDirectory()
        _ = try directory.write(Synthetic.gradient(4, 4).encoded(as: .png), to: "in.png")
        let result = try CommandRunner.run(["run", "-e", "", "in.png", "-o", "no/such/dir/out.png"], in: directory.path)
        #expect(result.status == 1)
        #expect(result.standardError == "imagepipe: no/such/dir/out.png: cannot write: No such file or directory\n")
    }

    @Test func neverOverwritesItsInputUnlessAsked() throws {
        let directory = try TemporaryDirectory()
        let original = try Synthetic.gradient(8, 8).encoded(as: .png)
        _ = try directory.write(original, to: "in.png")
        let refused = try CommandRunner.run(["run", "-e", "load | save compression=9", "in.png", "-o", "./in.png"], in: directory.path)
        #expect(refused.status == 2)
        #expect(refused.standardError == "imagepipe: the output './in.png' is the input file 'in.png'; give --overwrite to replace it\n")
        #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: directory.file("in.png")))) == original)
        let allowed = try CommandRunner.run(["run", "-e", "load | save compression=9", "in.png", "-o", "in.png", "--overwrite"], in: directory.path)
        #expect(allowed.status == 0)
    }

    @Test func standardInputAndOutput() throws {
        let png = try Synthetic.gradient(12, 10).encoded(as: .png)
        let result = try CommandRunner.run(["run", "-e", "fit 6x6", "-", "-o", "-", "--format", "jpeg"], input: png)
        #expect(result.status == 0, "\(result.standardError)")
        #expect(try ImageHeader.read(bytes: result.outputBytes) == ImageHeader(storedSize: Size(6, 5), format: .jpeg))
        // Without a format named, the input's own.
        let noFormat = try CommandRunner.run(["run", "-e", "", "-", "-o", "-"], input: png)
        #expect(noFormat.status == 0, "\(noFormat.standardError)")
        #expect(try ImageHeader.read(bytes: noFormat.outputBytes) == ImageHeader(storedSize: Size(12, 10), format: .png))
        let garbage = try CommandRunner.run(["run", "-e", "", "-", "-o", "-", "--format", "png"], input: Array("not a picture".utf8))
        #expect(garbage.status == 1)
        #expect(garbage.standardError == "imagepipe: -: unsupported format: not a picture format ImagePipe recognizes by its first bytes\n")
        #expect(garbage.outputBytes.isEmpty)
    }

    @Test func variablesFromTheCommandLine() throws {
        let directory = try TemporaryDirectory()
        _ = try directory.write(Synthetic.gradient(4, 4).encoded(as: .png), to: "in.png")
        let result = try CommandRunner.run(["run", "-e", "save $NAME.jpg", "in.png", "--set", "NAME=result"], in: directory.path)
        #expect(result.status == 0, "\(result.standardError)")
        #expect(try directory.contents() == ["in.png", "result.jpg"])
        let unset = try CommandRunner.run(["run", "-e", "save $NAME.jpg", "in.png"], in: directory.path)
        #expect(unset.status == 2)
        #expect(unset.standardError.hasPrefix("<inline>:1:6: error: unset variable 'NAME': give it with --set NAME=VALUE"))
    }

    @Test func pixelLimit() throws {
        let directory = try TemporaryDirectory()
        _ = try directory.write(Synthetic.gradient(20, 20).encoded(as: .png), to: "in.png")
        let result = try CommandRunner.run(["run", "-e", "", "in.png", "-o", "out.png", "--max-pixels", "100"], in: directory.path)
        #expect(result.status == 1)
        #expect(result.standardError == "imagepipe: in.png: too large: 20x20 is 400 pixels, more than the limit of 100; raise the limit with --max-pixels\n")
        #expect(try directory.contents() == ["in.png"])
    }
}

@Suite struct CommandSurfaceTests {
    @Test func version() throws {
        let result = try CommandRunner.run(["--version"])
        #expect(result.status == 0)
        let lines = result.standardOutput.split(separator: "\n")
        #expect(lines.first == "imagepipe 0.1.0")
        #expect(lines.count == 3 && lines[1].hasPrefix("plugin interface \(Registry.pluginInterfaceVersion), schema \(Registry.pluginSchemaVersion); built with Swift "),
                "\(result.standardOutput)")
        #expect(lines.last == "libraries opened on first use: libheif.so.1 libavif.so.15")
        // The toolchain named is the one that builds plugins here: `swift --version` says so too.
        let swift = try CommandRunner.runProgram("/usr/bin/env", ["swift", "--version"])
        #expect(swift.standardOutput.contains("Swift version \(BuildInfo.swiftVersion) ") || swift.standardOutput.contains("Swift version \(BuildInfo.swiftVersion)-"),
                "\(swift.standardOutput) against \(BuildInfo.swiftVersion)")
        #expect(result.standardOutput.contains("Swift \(BuildInfo.swiftVersion) "))
    }

    /// libheif and libavif are opened when a picture needs them, not at start-up: the command does
    /// not link them (nor the HEVC and AV1 codecs they bring), and still reads HEIC and writes AVIF.
    @Test func heifAndAvifAreOpenedOnFirstUse() throws {
        let dynamic = try CommandRunner.runProgram("/usr/bin/readelf", ["-d", CommandRunner.binary]).standardOutput
        let needed = dynamic.split(separator: "\n").filter { $0.contains("(NEEDED)") }
        #expect(needed.contains { $0.contains("libgdk_pixbuf") }, "\(dynamic)")
        #expect(!needed.contains { $0.contains("libheif") || $0.contains("libavif") }, "\(needed)")
        let mapped = try CommandRunner.runProgram("/usr/bin/ldd", [CommandRunner.binary]).standardOutput
        for codec in ["libheif", "libavif", "libde265", "libx265", "libdav1d", "libaom"] {
            #expect(!mapped.contains(codec), "\(codec) is mapped at start-up")
        }
        let directory = try TemporaryDirectory()
        try Synthetic.image(40, 30) { x, _ in Color(red: UInt8(x * 6), green: 90, blue: 160) }.save(to: directory.file("in.png"))
        let written = try CommandRunner.run(["run", "-e", "save format=avif", directory.file("in.png"), "-o", directory.file("out.avif")])
        #expect(written.status == 0, "\(written.standardError)")
        let read = try CommandRunner.run(["run", "-e", "resize 20x15", directory.file("out.avif"), "-o", directory.file("back.png")])
        #expect(read.status == 0, "\(read.standardError)")
        let back = try Image.load(path: directory.file("back.png"))
        #expect(back.size == Size(20, 15))
        #expect(abs(Int(back.pixel(x: 10, y: 7).blue) - 160) <= 12, "\(back.pixel(x: 10, y: 7))")
    }

    @Test(arguments: [["--help"], ["run", "--help"], ["check", "--help"], ["stages", "--help"]])
    func helpForEverySubcommand(arguments: [String]) throws {
        let result = try CommandRunner.run(arguments)
        #expect(result.status == 0)
        #expect(result.standardOutput.hasPrefix("usage: imagepipe"))
    }

    /// `imagepipe help run` is `imagepipe run --help`.
    @Test func helpCommandNamesASubcommand() throws {
        let help = try CommandRunner.run(["help", "run"])
        #expect(help.status == 0)
        #expect(help.standardOutput == (try CommandRunner.run(["run", "--help"])).standardOutput)
        #expect(help.standardOutput.hasPrefix("usage: imagepipe run"))
    }

    /// Short options bundle and take attached values, as POSIX utilities do.
    @Test func shortOptionsBundleAndAttach() throws {
        let directory = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: directory.file("in/sub"), withIntermediateDirectories: true)
        _ = try directory.write(Synthetic.gradient(40, 30).encoded(as: .png), to: "in/a.png")
        _ = try directory.write(Synthetic.gradient(30, 20).encoded(as: .png), to: "in/sub/b.png")
        let bundled = try CommandRunner.run(["run", "-qrj2", "-e", "fit 10x10", "in", "--out-dir", "out"], in: directory.path)
        #expect(bundled.status == 0, "\(bundled.standardError)")
        #expect(FileManager.default.fileExists(atPath: directory.file("out/sub/b.png")), "-r reached the sub-folder")
        #expect(!bundled.standardError.contains("→"), "-q silenced the per-file lines")
        let attached = try CommandRunner.run(["run", "-efit 8x8", "in/a.png", "-oone.png"], in: directory.path)
        #expect(attached.status == 0, "\(attached.standardError)")
        #expect(try Image.load(path: directory.file("one.png")).size == Size(8, 6))
        let missing = try CommandRunner.run(["run", "-qe"], in: directory.path)
        #expect(missing.status == 2 && missing.standardError == "imagepipe: option '-e' needs a value\n")
        let unknown = try CommandRunner.run(["run", "-qz"], in: directory.path)
        #expect(unknown.status == 2 && unknown.standardError.hasPrefix("imagepipe: unknown option '-z'"))
    }

    @Test func usageErrorsGiveStatus2() throws {
        #expect(try CommandRunner.run([]).status == 2)
        let unknown = try CommandRunner.run(["rnu"])
        #expect(unknown.status == 2)
        #expect(unknown.standardError == "imagepipe: unknown command 'rnu' (did you mean 'run'?); see imagepipe --help\n")
        let option = try CommandRunner.run(["run", "--ouput", "x"])
        #expect(option.standardError == "imagepipe: unknown option '--ouput' (did you mean '--output'?)\n")
        #expect(try CommandRunner.run(["run", "-e", "", "a.png", "b.png", "-o", "same.png"]).status == 2)
    }

    @Test func checkValidatesWithoutRunning() throws {
        let good = try CommandRunner.run(["check", "-e", "load | save out.png compression=6"])
        #expect(good.status == 0)
        #expect(good.standardOutput == "load\nsave out.png\n")
        let bad = try CommandRunner.run(["check", "-e", "lod"])
        #expect(bad.status == 2)
        #expect(bad.standardError.contains("unknown stage 'lod' (did you mean 'load'?)"))
    }

    @Test func stagesListsAndDescribes() throws {
        let list = try CommandRunner.run(["stages"])
        #expect(list.status == 0)
        let loadLine = list.standardOutput.split(separator: "\n").first { $0.hasPrefix("  load ") }
        #expect(loadLine?.hasSuffix("Read a picture file (JPEG, PNG, WebP, GIF, TIFF, BMP, AVIF, HEIF, JPEG XL (.jxl); others with --allow-format)") == true)
        for plugin in ["core", "fit-zoom", "letterbox", "square-slice", "circle-crop", "anchor-rotate"] {
            #expect(list.standardOutput.contains("\n\(plugin) — ") || list.standardOutput.hasPrefix("\(plugin) — "), "\(plugin)")
        }
        // The one-line summary names every format decoded without --allow-format.
        let load = try CommandRunner.run(["stages", "load"]).standardOutput
        let vetted = load.split(separator: "\n").first { $0.hasPrefix("formats: ") }?.dropFirst(9).prefix { $0 != ";" }
        #expect(vetted?.split(separator: ",").count == 9)
        for format in vetted?.split(separator: ",") ?? [] {
            #expect(loadLine?.lowercased().contains(format.trimmingCharacters(in: .whitespaces)) == true, "\(format)")
        }
        let save = try CommandRunner.run(["stages", "save"])
        #expect(save.standardOutput.contains("usage: save [PATH] [format=auto] [quality=auto] [compression=6] [background=white] [chroma=auto] [progressive=false] [optimize-coding=auto] [lossless=auto] [near-lossless=false] [effort=auto] [alpha-quality=100] [speed=5] [palette=auto] [colors=auto] [dither=1] [keep=none] [profile=auto]"))
        #expect(try CommandRunner.run(["stages", "sav"]).standardError == "imagepipe: unknown stage 'sav' (did you mean 'save'?); `imagepipe stages` lists them all\n")
    }
}
