import Foundation
import Testing
import ImagePipe
import TestSupport

@Suite struct LanguageTests {
    private let compiler = TestRegistry.compiler

    /// The full printed diagnostics for `text`, or nil when it compiles.
    private func errors(_ text: String, file: String = "test.pipe", variables: [String: String] = [:]) -> String? {
        do {
            _ = try compiler.compile(text, file: file, variables: variables)
            return nil
        } catch {
            return error.description
        }
    }

    @Test func stagesByLineOrPipeAreTheSame() throws {
        let lines = try compiler.compile("load in.png\ncrop 10x10\n\n   half\nsave out.png\n")
        let piped = try compiler.compile("load in.png | crop 10x10 | half | save out.png")
        #expect(lines.text == piped.text)
        #expect(lines.text == "load in.png\ncrop 10x10\nhalf\nsave out.png")
        #expect(lines.locations.map { $0?.line } == [1, 2, 4, 5])
        #expect(piped.locations.map { $0?.column } == [1, 15, 28, 35])
    }

    @Test func missingLoadAndSaveAreFilledIn() throws {
        let pipeline = try compiler.compile("half")
        #expect(pipeline.source is Load && pipeline.sink is Save)
        #expect(pipeline.locations.map { $0 == nil } == [true, false, true])
        #expect(try compiler.compile("").transforms.isEmpty)
    }

    @Test func commentsAndColours() throws {
        let text = """
            #!/usr/bin/env -S imagepipe run
            # a whole-line comment
            #half  (commented-out stage)
            every-type tint=#fff    # trailing comment
            every-type tint=#000000 | # after a pipe
            every-type tint=#abc
            """
        let pipeline = try compiler.compile(text)
        #expect(pipeline.transforms.count == 3)
        #expect(pipeline.transforms[0].text == "every-type tint=white")
        #expect(pipeline.transforms[1].text == "every-type")
        #expect(errors("every-type tint=#abc#")?.contains("invalid tint '#abc#'") == true)
    }

    @Test func quotesEscapesAndContinuations() throws {
        let pipeline = try compiler.compile(#"""
            every-type label="say \"hi\"\tnow" \
                file='C:\raw $x' \
                mode=best
            every-type label=a\ b file=x"y z"w
            """#)
        let first = pipeline.transforms[0] as! TestEveryType
        #expect(first.label == "say \"hi\"\tnow")
        #expect(first.file == #"C:\raw $x"#)
        #expect(first.mode == "best")
        let second = pipeline.transforms[1] as! TestEveryType
        #expect(second.label == "a b")
        #expect(second.file == "xy zw")
    }

    @Test func quotedEqualsIsNotAKey() throws {
        let pipeline = try compiler.compile(#"load "a=b.png""#)
        #expect((pipeline.source as! Load).path == "a=b.png")
    }

    @Test func variables() throws {
        let pipeline = try compiler.compile("crop ${W}x$H | save \"$OUT/x.png\"", variables: ["W": "10", "H": "20", "OUT": "dir"])
        #expect(pipeline.text == "load\ncrop 10x20\nsave dir/x.png")
        #expect(try compiler.compile("save '$OUT'").sink.text == #"save "\$OUT""#)
    }

    @Test func variableDefaults() throws {
        let text = "crop ${SIZE:-300x300} | save \"${OUT:-out}.png\""
        #expect(try compiler.compile(text).text == "load\ncrop 300x300\nsave out.png")
        #expect(try compiler.compile(text, variables: ["SIZE": "64x64", "OUT": "a"]).text == "load\ncrop 64x64\nsave a.png")
        // Empty counts as unset, as in a shell; without a default an empty value stays empty.
        #expect(try compiler.compile(text, variables: ["SIZE": ""]).text == "load\ncrop 300x300\nsave out.png")
        #expect(try compiler.compile("crop 9x9 | save \"a${X}.png\"", variables: ["X": ""]).sink.text == "save a.png")
        #expect(errors("crop ${SIZE:300}") != nil)
        #expect(errors("crop ${SIZE:-300") != nil)
    }

    // MARK: every diagnostic, exact text

    @Test func unknownStage() {
        #expect(errors("load\nhafl\n") == """
            test.pipe:2:1: error: unknown stage 'hafl' (did you mean 'half'?)
                hafl
                ^~~~
            """)
        #expect(errors("zzzzzz") == """
            test.pipe:1:1: error: unknown stage 'zzzzzz'
                zzzzzz
                ^~~~~~
            """)
    }

    @Test func unknownParameter() {
        #expect(errors("  crop 10x10 att=1,2") == """
            test.pipe:1:14: error: crop: unknown parameter 'att' (did you mean 'at'?)
                  crop 10x10 att=1,2
                             ^~~
            """)
    }

    @Test func invalidValue() {
        #expect(errors("crop 0x10") == """
            test.pipe:1:6: error: crop: invalid size '0x10': each side must be from 1 to 100000
                crop 0x10
                     ^~~~
            """)
        #expect(errors("every-type ratio=nan") == """
            test.pipe:1:18: error: every-type: invalid ratio 'nan': expected a finite number
                every-type ratio=nan
                                 ^~~
            """)
    }

    @Test func tooManyPositionalsAndRepeats() {
        #expect(errors("half 2") == """
            test.pipe:1:6: error: half: unexpected argument '2': half takes no positional argument; name the parameter, as key=value
                half 2
                     ^
            """)
        #expect(errors("crop 1x1 size=2x2") == """
            test.pipe:1:10: error: crop: 'size' is given twice
                crop 1x1 size=2x2
                         ^~~~
            """)
    }

    @Test func missingRequired() {
        #expect(errors("crop at=1,1") == """
            test.pipe:1:1: error: crop: missing size (size WxH (1…100000 each)); usage: crop SIZE [at=0,0]
                crop at=1,1
                ^~~~
            """)
    }

    @Test func strings() {
        #expect(errors(#"save "out.png"#) == """
            test.pipe:1:6: error: unterminated string: add a closing "
                save "out.png
                     ^
            """)
        #expect(errors("save 'out.png") == """
            test.pipe:1:6: error: unterminated string: add a closing '
                save 'out.png
                     ^
            """)
        #expect(errors(#"save "a\qb""#) == """
            test.pipe:1:8: error: unknown escape '\\q' in a quoted string (use \\\\ for a backslash)
                save "a\\qb"
                       ^~
            """)
    }

    /// The library names no command-line option; the remedy is told apart for the front end.
    @Test func diagnosticsCarryTheirRemedy() {
        func remedy(_ text: String) -> Remedy? {
            do { _ = try compiler.compile(text, file: "test.pipe"); return nil } catch { return error.remedy }
        }
        #expect(remedy("hafl") == .listStages)
        #expect(remedy("save $OUT.png") == .setVariable("OUT"))
        #expect(remedy("crop 0x0") == nil)
    }

    @Test func variableErrors() {
        #expect(errors("save $OUT.png") == """
            test.pipe:1:6: error: unset variable 'OUT'
                save $OUT.png
                     ^~~~
            """)
        #expect(errors("save 5$.png") == """
            test.pipe:1:7: error: '$' must start a variable, like $NAME, ${NAME} or ${NAME:-DEFAULT}; write \\$ for a dollar sign
                save 5$.png
                      ^
            """)
    }

    @Test func stageNames() {
        #expect(errors("size=3") == """
            test.pipe:1:1: error: expected a stage name before 'size=3'
                size=3
                ^~~~~~
            """)
        #expect(errors(#""half""#) == """
            test.pipe:1:1: error: expected a stage name (lower-case letters, digits and '-'), found 'half'
                "half"
                ^~~~~~
            """)
    }

    @Test func pipes() {
        #expect(errors("half | | half") == """
            test.pipe:1:8: error: empty stage: nothing between two '|'
                half | | half
                       ^
            """)
        #expect(errors("| half") == """
            test.pipe:1:1: error: a pipeline cannot start with '|'
                | half
                ^
            """)
        #expect(errors("half |") == """
            test.pipe:1:6: error: the pipeline ends with '|': a stage should follow it
                half |
                     ^
            """)
        #expect(errors("half |\nhalf") == nil)
    }

    @Test func sourcesAndSinksAtTheEnds() {
        #expect(errors("half | load x.png") == """
            test.pipe:1:8: error: 'load' reads the picture, so it must be the first stage
                half | load x.png
                       ^~~~
            """)
        #expect(errors("save x.png | half") == """
            test.pipe:1:1: error: 'save' writes the picture, so it must be the last stage
                save x.png | half
                ^~~~
            """)
    }

    @Test func everyErrorIsReportedInOrder() {
        let report = errors("hafl\ncrop 0x0\nhalf bad")
        #expect(report?.components(separatedBy: ": error: ").count == 4)
        #expect(report?.hasPrefix("test.pipe:1:1:") == true)
    }

    @Test func tabsKeepTheUnderlineAligned() {
        #expect(errors("\tcrop\t0x1") == "test.pipe:1:7: error: crop: invalid size '0x1': each side must be from 1 to 100000\n    \tcrop\t0x1\n    \t    \t^~~")
    }
}

