import Testing
@testable import ImagePipeCommand
import ImagePipe
import ImagePipeStages
import TestSupport

/// Nothing the user writes is passed over without a word: a palette size turns the palette on,
/// a `--set` name the pipeline never uses is an error, and characters no font has are a warning.
@Suite struct SilentlyIgnoredTests {
    private let compiler = StandardPlugins.compiler

    @Test func aPaletteSizeTurnsThePaletteOn() throws {
        let directory = try TemporaryDirectory()
        let input = try directory.write(Synthetic.gradient(32, 32).encoded(as: .png), to: "in.png")
        for (text, palette) in [("save colors=8", true), ("save", false), ("save palette=false colors=8", false), ("save palette=true", true)] {
            let pipeline = try compiler.compile(text)
            #expect(pipeline.sink.text == text, "its canonical text keeps what was written")
            let output = directory.file("\(text.count).png")
            try pipeline.run(in: RunContext(input: input, output: output))
            #expect(try ImageInfo.read(path: output).coding.colorSpace == (palette ? "palette" : "RGB"), "\(text)")
        }
    }

    @Test func aSetNameThePipelineNeverUsesIsAnError() throws {
        func arguments(_ words: [String]) throws -> PipelineArguments {
            var parser = OptionParser(options: PipelineArguments.options)
            try parser.parse(words)
            return try PipelineArguments(parser, command: "run")
        }
        #expect(throws: UsageError("--set SIZ: the pipeline never uses $SIZ; did you mean SIZE?")) {
            try arguments(["-e", "fit ${SIZE:-100x100}", "--set", "SIZ=100x100"])
        }
        #expect(throws: UsageError("--set size: the pipeline never uses $size; did you mean SIZE?")) {
            try arguments(["-e", "fit $SIZE", "--set", "SIZE=8x8", "--set", "size=9x9"])
        }
        #expect(throws: UsageError("--set Q: the pipeline never uses $Q; it uses no variables")) {
            try arguments(["-e", "fit 8x8 | save 'q$Q.jpg'", "--set", "Q=80"])
        }
        #expect(throws: UsageError("--set WIDTH: the pipeline never uses $WIDTH; it uses $HEIGHT, $SIZE")) {
            try arguments(["-e", "fit ${SIZE:-8x8} | resize x$HEIGHT", "--set", "WIDTH=4", "--set", "HEIGHT=4"])
        }
        #expect(try arguments(["-e", "fit ${SIZE:-8x8}", "--set", "SIZE=4x4"]).variables == ["SIZE": "4x4"])
    }

    @Test func charactersNoFontHasAreAWarningAndANote() throws {
        let directory = try TemporaryDirectory()
        let input = try directory.write(Synthetic.gradient(64, 32).encoded(as: .png), to: "in.png")
        let warnings = Locked<[String]>([])
        let pipeline = try compiler.compile("text 'A\u{378}' font='DejaVu Sans 12'")
        let result = try pipeline.run(in: RunContext(input: input, output: directory.file("out.png"), warn: { warning in warnings.withLock { $0.append(warning) } }))
        let expected = "text: the font 'DejaVu Sans 12' has no glyph for U+0378 (\u{378}), drawn as a box; no installed font has it"
        #expect(warnings.withLock { $0 }.count == 1)
        #expect(warnings.withLock { $0 }.first?.hasPrefix(expected) == true, "\(warnings.withLock { $0 })")
        #expect(result.notes[1]?.map(\.name) == ["warning"])
        #expect(result.notes[1]?.first?.text.hasPrefix(expected) == true)
    }
}
