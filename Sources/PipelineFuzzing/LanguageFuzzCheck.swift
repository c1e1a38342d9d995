import ImagePipe
import ImagePipeCommand
import ImagePipeStages

/// What the fuzzer checks for any text: the pipeline language never crashes, and whatever
/// compiles keeps its promises — its canonical text compiles again to the same canonical text,
/// and plans against a few sizes either give sizes or a located error.
public enum LanguageFuzzCheck {
    static let compiler = StandardPlugins.compiler
    static let sizes = [Size(1, 1), Size(7, 3), Size(640, 480), Size(1, 5000)]

    /// Checks one input; a broken promise stops the process (so libFuzzer reports it).
    public static func check(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let text = String(validating: bytes, as: UTF8.self) else { return }
        let pipeline: Pipeline
        do {
            pipeline = try compiler.compile(text, file: "<fuzz>", variables: ["W": "64", "NAME": "x"])
        } catch {
            // compile throws only PipelineSyntaxError, which must say what is wrong.
            precondition(!error.diagnostics.isEmpty, "a syntax error without a diagnostic for \(text.debugDescription)")
            for diagnostic in error.diagnostics { _ = diagnostic.description }
            return
        }
        let canonical = pipeline.text
        do {
            let again = try compiler.compile(canonical)
            precondition(again.text == canonical, "canonical text \(canonical.debugDescription) came back as \(again.text.debugDescription)")
        } catch {
            preconditionFailure("canonical text \(canonical.debugDescription) of \(text.debugDescription) does not compile: \(error)")
        }
        for size in sizes {
            do {
                let plan = try pipeline.plan(sourceSize: size)
                precondition(plan.steps.allSatisfy { !$0.output.isEmpty }, "an empty size planned for \(text.debugDescription)")
            } catch is PipelineError {
            } catch {
                preconditionFailure("planning threw \(error) for \(text.debugDescription)")
            }
        }
    }
}
