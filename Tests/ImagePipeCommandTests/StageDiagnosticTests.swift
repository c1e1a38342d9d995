import Testing
import ImagePipe
import ImagePipeCommand
import ImagePipeStages

/// Diagnostics from the stock stages' own checks across parameters point at the parameter.
@Suite struct StageDiagnosticTests {
    private func errors(_ text: String) -> String? {
        do {
            _ = try StandardPlugins.compiler.compile(text, file: "s.pipe")
            return nil
        } catch {
            return error.description
        }
    }

    @Test func crossParameterChecksPointAtTheParameter() {
        #expect(errors("rotate angle=3 pan=4") == """
            s.pipe:1:16: error: rotate: give angle or pan, not both
                rotate angle=3 pan=4
                               ^~~~~
            """)
        #expect(errors("circle-crop size=64 zoom=2") == """
            s.pipe:1:21: error: circle-crop: zoom is part of the editor's state; give viewport=WxH too
                circle-crop size=64 zoom=2
                                    ^~~~~~
            """)
        #expect(errors("rotate anchor=0.5,1.5") == """
            s.pipe:1:1: error: rotate: give a quarter turn (rotate 90), angle=A (like 30deg) or pan=P (pixels)
                rotate anchor=0.5,1.5
                ^~~~~~
            """)
        #expect(errors("crop-editor 100x100 gap=100") == """
            s.pipe:1:21: error: crop-editor: gap 100 leaves no circle in a 100x100 viewport
                crop-editor 100x100 gap=100
                                    ^~~~~~~
            """)
    }

    @Test func planErrorsOfStockStagesAreLocated() throws {
        let pipeline = try StandardPlugins.compiler.compile("load\ncircle-mask gap=50", file: "m.pipe")
        let error = try #require(throws: PipelineError.self) { try pipeline.plan(sourceSize: Size(40, 30)) }
        #expect(error.description == "m.pipe:2:1: error: circle-mask: gap 50 leaves no circle on a 40x30 picture (its shorter side is 30)")
    }
}
