import Foundation
import Testing
import ImagePipe
import ImagePipeCommand
import ImagePipeStages
import TestSupport

/// Every error the framework throws is an `ImagePipeError`: an embedding program catches one
/// type and gets a readable message, the place in the text and the error underneath.
@Suite struct ErrorProtocolTests {
    /// The error `body` throws, as the one protocol.
    static func caught(_ body: () throws -> Void) -> (any ImagePipeError)? {
        do {
            try body()
            return nil
        } catch let error as any ImagePipeError {
            return error
        } catch {
            Issue.record("\(type(of: error)) is not an ImagePipeError: \(error)")
            return nil
        }
    }

    @Test func everyFailureCanBeCaughtAsOneType() throws {
        let directory = try TemporaryDirectory()
        // Text that does not parse: the place of its first error.
        let syntax = try #require(Self.caught { _ = try StandardPlugins.compiler.compile("fit 10x10 |\nblurr 3", file: "a.pipe") })
        #expect(syntax.location.map { [$0.file, "\($0.line)", "\($0.column)"] } == ["a.pipe", "2", "1"], "\(syntax)")
        #expect(syntax.message.hasPrefix("unknown stage 'blurr'"), "\(syntax.message)")
        // A stage made in code with a value the language refuses: readable, not a dump of fields.
        let argument = try #require(Self.caught { try Pipeline(sink: Save(options: SaveOptions(profile: .file("")))).validate() })
        #expect(!"\(argument)".contains("ArgumentError("), "\(argument)")
        #expect(!argument.message.isEmpty)
        // A file that cannot be read, and a plan that cannot be made.
        let image = try #require(Self.caught { _ = try Image.load(path: directory.file("missing.png")) })
        #expect(image.message.contains("missing.png"), "\(image)")
        let pipeline = try StandardPlugins.compiler.compile("crop 0,0,50x50")
        try Synthetic.gradient(10, 10).save(to: directory.file("small.png"))
        let plan = try #require(Self.caught { _ = try pipeline.plan(in: RunContext(input: directory.file("small.png"))) })
        #expect(plan.message.hasPrefix("the rectangle 0,0,50x50 does not lie inside the 10x10 picture"), "\(plan)")
        #expect(plan.location != nil)
        #expect("\(plan)".hasPrefix("<inline>:1:1: error: crop: "), "\(plan)")
    }
}
