import Foundation
import Testing
import ImagePipe
@testable import ImagePipeCommand
import ImagePipeStages
import TestSupport

/// The default time limit grows with the work a picture's plan asks for, so that legitimate work
/// (a 13-megapixel photo to AVIF at speed 0 takes minutes) is never cut short, while reading a
/// picture stays bounded by the base.
@Suite struct TimeLimitTests {
    static func limit(_ text: String, size: Size, output: String, _ limit: TimeLimit = .scaled) throws -> Double? {
        let pipeline = try StandardPlugins.compiler.compile(text)
        let context = RunContext(input: "in.jpg", output: output)
        return limit.seconds(for: try pipeline.plan(sourceSize: size), pipeline: pipeline, context: context)
    }

    @Test func theLimitGrowsWithTheWork() throws {
        let photo = Size(4400, 3000) // 13.2 megapixels
        let thumbnail = try #require(try Self.limit("resize 640x640 fit=inside", size: photo, output: "t.jpg"))
        let avif = try #require(try Self.limit("save speed=0", size: photo, output: "a.avif"))
        let avifFast = try #require(try Self.limit("save speed=8", size: photo, output: "a.avif"))
        let blur = try #require(try Self.limit("blur 20", size: photo, output: "b.png"))
        // Measured here, idle: a thumbnail under a second; AVIF at speed 0 12.9 s a megapixel
        // (on a 1-megapixel picture), so about 170 s for this one.
        #expect((60...200).contains(thumbnail), "\(thumbnail)")
        #expect(avif >= 60 + 10 * 13.2 * 12.9, "\(avif)")
        #expect(avifFast < avif && avifFast >= 60 + 4 * 10, "\(avifFast)")
        #expect(blur > thumbnail, "a wide blur is more work than a thumbnail")
        // A branch's groups count: an AVIF group at speed 0 beside a thumbnail.
        let branch = try #require(try Self.limit("branch { save a.avif speed=0 } { resize 640x | save t.jpg }", size: photo, output: "x"))
        #expect(branch >= avif - 10, "\(branch) against \(avif)")
        // An animation's frames each do the work: 100 frames of a 480x270 GIF into WebP.
        let clip = try StandardPlugins.compiler.compile("resize 240x")
        let clipPlan = try clip.plan(sourceSize: Size(480, 270))
        let one = try #require(TimeLimit.scaled.seconds(for: clipPlan, pipeline: clip, context: RunContext(input: "a.gif", output: "a.webp")))
        let hundred = try #require(TimeLimit.scaled.seconds(for: clipPlan, frames: 100, pipeline: clip, context: RunContext(input: "a.gif", output: "a.webp")))
        #expect(hundred > one + 20, "\(hundred) against \(one)")
        // The limit given is the limit; 0 is none; reading is bounded by the base either way.
        #expect(try Self.limit("save speed=0", size: photo, output: "a.avif", .fixed(5)) == 5)
        #expect(try Self.limit("save speed=0", size: photo, output: "a.avif", .none) == nil)
        #expect(TimeLimit.scaled.readingSeconds == 60 && TimeLimit.fixed(5).readingSeconds == 5 && TimeLimit.none.readingSeconds == nil)
    }

    @Test func theCommandLineChoosesTheLimit() throws {
        func limit(_ arguments: [String]) throws -> TimeLimit {
            var parser = OptionParser(options: LimitOptions.options)
            try parser.parse(arguments)
            return try LimitOptions.timeLimit(parser)
        }
        #expect(try limit([]) == .scaled)
        #expect(try limit(["--timeout", "2.5"]) == .fixed(2.5))
        #expect(try limit(["--timeout", "0"]) == TimeLimit.none)
    }
}
