import Foundation
import Testing
import ImagePipe
import ImagePipeCommand
import ImagePipeStages
import TestSupport

/// What the command says: suggestions only when they are likely, synonyms that point at the
/// stage that does the job, one error per mistake, exit 2 for every usage error, and one wording
/// across every stage's help and errors.
@Suite struct MessageTests {
    @Test func farOffNamesGetNoSuggestion() throws {
        let short = try CommandRunner.run(["run", "-v"])
        #expect(short.status == 2)
        #expect(short.standardError == "imagepipe: unknown option '-v'\n")
        #expect(try CommandRunner.run(["rum"]).standardError.contains("(did you mean 'run'?)"), "a typo still gets one")
        #expect(Suggestion.closest(to: "x", in: ["e", "o"]) == nil)
        #expect(Suggestion.closest(to: "fti", in: ["fit", "flip"]) == "fit")
        #expect(Suggestion.closest(to: "ab", in: ["crop"]) == nil)
    }

    @Test func otherToolsNamesPointAtTheStageThatDoesTheJob() throws {
        let directory = try TemporaryDirectory()
        _ = try directory.write(Synthetic.gradient(8, 8).encoded(as: .png), to: "a.png")
        let scale = try CommandRunner.run(["run", "-e", "scale 64x64", "a.png", "-o", "b.png"], in: directory.path)
        #expect(scale.status == 2)
        #expect(scale.standardError.hasPrefix("<inline>:1:1: error: unknown stage 'scale' (did you mean 'resize'?); `imagepipe stages` lists them all\n"), "\(scale.standardError)")
        #expect(try CommandRunner.run(["stages", "mirror"]).standardError == "imagepipe: unknown stage 'mirror' (did you mean 'flop'?); `imagepipe stages` lists them all\n")
        #expect(try CommandRunner.run(["stages", "zzzz"]).standardError == "imagepipe: unknown stage 'zzzz'; `imagepipe stages` lists them all\n")
        let names = StandardPlugins.registry.stageNames
        for (word, stage) in StageSynonyms.table {
            #expect(names.contains(word) == false, "'\(word)' is a stage: it needs no synonym")
            if names.contains(stage) { #expect(StageSynonyms.suggestion(for: word, in: names) != nil, "\(word)") }
        }
        #expect(StageSynonyms.suggestion(for: "round", in: ["circle-crop"]) == "circle-crop")
        #expect(StageSynonyms.suggestion(for: "round", in: ["fit"]) == nil, "only stages that exist")
    }

    /// Each parameter spelled as ImageMagick, libvips or sharp spell it, and the exact
    /// replacement the error gives; running the replacement is checked too.
    @Test(arguments: [
        ("save o.jpg Q=80", "save: unknown parameter 'Q': write quality=80"),
        ("save o.jpg q=80", "save: unknown parameter 'q': write quality=80"),
        ("save o.jpg strip=true", "save: unknown parameter 'strip': write keep=none"),
        ("save o.jpg interlace=Plane", "save: unknown parameter 'interlace': write progressive=true"),
        ("save o.jpg chroma-subsampling=4:2:0", "save: unknown parameter 'chroma-subsampling': write chroma=420"),
        ("resize 32x32 gravity=NorthEast", "resize: unknown parameter 'gravity': write position=top-right"),
        ("resize 32x32 gravity=centre", "resize: unknown parameter 'gravity': write position=center"),
        ("resize 32x32 filter=Lanczos", "resize: unknown parameter 'filter': write kernel=lanczos3"),
        ("resize width=300", "resize: unknown parameter 'width': write size=300x"),
        ("resize 8x8 without-enlargement=true", "resize: unknown parameter 'without-enlargement': write upscale=false"),
        ("rotate 45", "rotate: invalid turn '45': expected one of 90, 180, 270; angle takes it: write angle=45"),
    ])
    func otherToolsParametersGetTheirReplacement(written: String, message: String) throws {
        let result = try CommandRunner.run(["check", "-e", written])
        #expect(result.status == 2)
        #expect(result.standardError.hasPrefix("<inline>:1:"), "\(result.standardError)")
        #expect(result.standardError.split(separator: "\n").first?.hasSuffix("error: " + message) == true, "\(result.standardError)")
        // The advice, taken as given, is a pipeline that checks.
        let advice = String(message[message.range(of: "write ")!.upperBound...])
        let key = written.split(separator: " ").dropFirst().last { $0.contains("=") || Double($0) != nil }!
        let fixed = written.replacingOccurrences(of: String(key), with: advice)
        #expect(try CommandRunner.run(["check", "-e", fixed]).status == 0, "\(fixed)")
    }

    @Test func aWordWhereASizeGoesIsNotCalledANumber() throws {
        let result = try CommandRunner.run(["check", "-e", "resize top"])
        #expect(result.standardError.hasPrefix("<inline>:1:8: error: resize: invalid size 'top': expected a size WxH, Wx (width only), xH (height only), N (a square box) or percentages (50%, 50%x25%); position takes it: write position=top\n"), "\(result.standardError)")
        // One number is a square box, as fit reads it.
        #expect(try CommandRunner.run(["check", "-e", "resize 300"]).standardOutput == "load\nresize 300x300\nsave\n")
    }

    @Test func choiceValuesAsOtherToolsSpellThemAreTaken() throws {
        let result = try CommandRunner.run(["check", "-e", "resize 8x8 kernel=bicubic | save o.bin format=jpg"])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput == "load\nresize 8x8 kernel=cubic\nsave o.bin format=jpeg\n")
        #expect(try CommandRunner.run(["check", "-e", "save format=jpg2"]).status == 2)
        #expect(try CommandRunner.run(["check", "-e", "rotate 90 | save lossless=require"]).standardOutput == "load\nrotate 90\nsave lossless=true\n")
        #expect(try CommandRunner.run(["check", "-e", "save lossless=never"]).standardOutput == "load\nsave lossless=false\n")
    }

    @Test(arguments: [
        (["--quality", "80"], "unknown option '--quality': quality is a parameter of save: end the pipeline with '| save quality=80'"),
        (["--quality=75"], "unknown option '--quality': quality is a parameter of save: end the pipeline with '| save quality=75'"),
        (["-quality", "80"], "unknown option '-quality': quality is a parameter of save: end the pipeline with '| save quality=80'"),
        (["-q", "80"], "-q is --quiet here, and 80 would be an input; quality is a parameter of save: end the pipeline with '| save quality=80'"),
        (["--strip"], "unknown option '--strip': metadata is left out already: save writes only what its keep= names (keep=none by default)"),
        (["-resize", "50%"], "unknown option '-resize': resizing is a stage: -e 'resize 50% fit=inside' (within the box, keeping the aspect ratio, as ImageMagick's -resize)"),
        (["--thumbnail", "200"], "unknown option '--thumbnail': resizing is a stage: -e 'resize 200x fit=inside' (metadata is left out unless save's keep= names it)"),
        (["--size", "200"], "unknown option '--size': resizing is a stage: -e 'resize 200x200 fit=inside' (within the box, keeping the aspect ratio, as vipsthumbnail's --size)"),
    ])
    func otherToolsOptionsGetTheirReplacement(arguments: [String], message: String) throws {
        let directory = try TemporaryDirectory()
        _ = try directory.write(Synthetic.gradient(8, 8).encoded(as: .png), to: "a.png")
        let result = try CommandRunner.run(["run", "-e", "fit 4x4", "a.png", "-o", "b.jpg"] + arguments, in: directory.path)
        #expect(result.status == 2)
        #expect(result.standardError == "imagepipe: \(message)\n")
        #expect(!FileManager.default.fileExists(atPath: directory.path + "/b.jpg"))
    }

    @Test func aBundleOfShortFlagsIsStillABundle() throws {
        let directory = try TemporaryDirectory()
        _ = try directory.write(Synthetic.gradient(8, 8).encoded(as: .png), to: "a.png")
        #expect(try CommandRunner.run(["run", "-e", "fit 4x4", "-qr", ".", "--out-dir", "out"], in: directory.path).status == 0)
        // -q before a number that is a file is --quiet and an input.
        _ = try directory.write(Synthetic.gradient(8, 8).encoded(as: .png), to: "80")
        #expect(try CommandRunner.run(["run", "-e", "fit 4x4", "-q", "80", "-o", "b.png"], in: directory.path).status == 0)
    }

    @Test func anUnsetVariableIsReportedOnce() throws {
        let result = try CommandRunner.run(["check", "-e", "fit $SIZE | letterbox ${SIZE}"])
        #expect(result.status == 2)
        let errors = result.standardError.split(separator: "\n").filter { $0.contains("error:") }
        #expect(errors.count == 2, "one per use, none for the missing size: \(result.standardError)")
        #expect(errors.allSatisfy { $0.contains("unset variable 'SIZE'") }, "\(result.standardError)")
    }

    @Test func noInputAndNoOutputAreBothUsageErrors() throws {
        let directory = try TemporaryDirectory()
        _ = try directory.write(Synthetic.gradient(8, 8).encoded(as: .png), to: "a.png")
        let noInput = try CommandRunner.run(["run", "-e", "fit 4x4", "-o", "b.png"], in: directory.path)
        #expect(noInput.status == 2)
        #expect(noInput.standardError == "imagepipe: load: no input: name a file after the pipeline, or give load a path\n")
        let noOutput = try CommandRunner.run(["run", "-e", "fit 4x4", "a.png"], in: directory.path)
        #expect(noOutput.status == 2)
    }

    /// Every user-visible text of every registered stage: plugin and stage summaries, parameter
    /// help and types, `explain` notes, and the errors its parameters give for bad values.
    static func stageTexts() throws -> [(String, String)] {
        let registry = StandardPlugins.registry
        var texts: [(String, String)] = registry.plugins.map { ("plugin \($0.name)", $0.summary) }
        let bad = ["-1", "nan", "1e308", "zz", "", "0x0", "#12", "400deg", "-5%", "1,2,3,4,5,6,7,8,9"]
        for name in registry.stageNames {
            let schema = registry.entry(named: name)!.schema
            texts.append(("\(name) summary", schema.summary))
            for parameter in schema.parameters {
                texts.append(("\(name) \(parameter.name) help", parameter.help))
                texts.append(("\(name) \(parameter.name) type", parameter.type.summary))
                for value in bad {
                    do { _ = try StandardPlugins.compiler.compile("\(name) \(parameter.name)=\(Quoting.quotedIfNeeded(value))") } catch {
                        texts.append(("\(name) \(parameter.name)=\(value)", "\(error)"))
                    }
                }
            }
            if let pipeline = try? StandardPlugins.compiler.compile(schema.example), let stage = pipeline.transforms.first {
                texts.append(("\(name) explain", ((try? stage.explanation(for: Size(640, 480))) ?? nil) ?? ""))
            }
        }
        return texts
    }

    @Test func oneWordingAcrossEveryStage() throws {
        let texts = try Self.stageTexts()
        #expect(texts.count > 100)
        for (origin, text) in texts {
            let lower = text.lowercased()
            // The parameters are `color` (as sharp and CSS), so the words are American too.
            #expect(!lower.contains("colour"), "\(origin): \(text)")
            #expect(!lower.contains("centre") && !lower.contains("centred"), "\(origin): \(text)")
            // Ranges in words in errors ("from 1 to 64"); `1…64` only in type summaries.
            #expect(!text.contains(/from -?[0-9.]+[a-z%]*…/), "\(origin): \(text)")
            // Every way of writing a color, wherever the forms are listed.
            if text.contains("#rrggbb") { #expect(text.contains("#rgba"), "\(origin): \(text)") }
            // Plain words first; a seed document only as a closing reference.
            #expect(!text.contains("Project NP"), "\(origin): \(text)")
            if origin.hasSuffix("summary") || origin.hasPrefix("plugin") {
                if text.contains("seed") { #expect(text.contains(/\ \(seed [0-9]{3}\)$/), "\(origin): \(text)") }
            } else {
                #expect(!lower.contains("seed"), "\(origin): \(text)")
            }
        }
    }

    /// The README, the docs, every command's help and the manual page spell as the stages do
    /// (American, after the `color` parameters): code spans and blocks are left out, since
    /// other tools' names (`vips colourspace`, `--crop centre`) are quoted there as they are.
    @Test func oneSpellingInTheDocsAndHelp() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        var texts: [(String, String)] = []
        let documents = try FileManager.default.subpathsOfDirectory(atPath: root.appendingPathComponent("docs").path)
            .filter { $0.hasSuffix(".md") }.map { "docs/" + $0 } + ["README.md", "Samples/CustomStage/README.md", "Benchmarks/README.md"]
        for document in documents {
            texts.append((document, try String(contentsOf: root.appendingPathComponent(document), encoding: .utf8)))
        }
        for command in ["run", "check", "explain", "stages", "info", "edit", "report", "serve", "url"] {
            texts.append(("\(command) --help", try CommandRunner.run([command, "--help"]).standardOutput))
        }
        texts.append(("imagepipe man", try CommandRunner.run(["man"]).standardOutput))
        #expect(texts.count > 12)
        let british = /(?i)\b(colour\w*|centr(e|es|ed|ing)|grey(s|scale)?|behaviour|(normali|optimi|recogni|summari|minimi|initiali|seriali)s(e|es|ed|ing|er|ation))\b/
        for (origin, text) in texts {
            // Code blocks first, then code spans (which may run over a line break), tags and link targets.
            let prose = text.replacing(/```[\s\S]*?```/, with: "").replacing(/`[^`]*`|<[^>]*>|\]\([^)]*\)/, with: "")
            for match in prose.matches(of: british) {
                Issue.record("\(origin): '\(match.output.0)' (spell it the American way, as the stages do)")
            }
        }
    }
}
