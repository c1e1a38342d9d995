import Foundation
import Testing
@testable import ImagePipe
@testable import ImagePipeCore
import TestSupport

/// A trace (`--trace`) observes a run without changing it: the stages of a streamed run still
/// get strips (TracedRunTests holds the pictures to the run of whole pictures').
@Suite struct TraceObserverTests {
    /// The stages of a traced run still get strips, not the picture.
    @Test func theStagesOfATracedRunGetStrips() throws {
        let directory = try TemporaryDirectory()
        let input = try directory.write(Synthetic.gradient(60, 200).encoded(as: .png), to: "in.png")
        let invert = StripInvert()
        var context = RunContext(input: input, output: directory.file("out.png"))
        let trace = try TraceWriter(directory: directory.file("trace"), title: "in.png")
        context.trace = trace
        try Pipeline(transforms: [invert]).run(in: context)
        try trace.finish(failure: nil)
        let heights = invert.heights.withLock { $0 }
        #expect(heights.reduce(0, +) == 200 && heights.max()! <= Pipeline.streamedStripRows, "\(heights)")
        let page = try String(contentsOfFile: directory.file("trace/index.html"), encoding: .utf8)
        #expect(page.contains("1. strip-invert<br>60x200 · "), "\(page)")
        #expect(Self.bytes(of: try Image.load(path: directory.file("trace/01-strip-invert.png"))) == Self.bytes(of: try Image.load(path: directory.file("out.png"))))
    }

    static func bytes(of image: Image) -> [UInt8] {
        (0..<image.height).flatMap { y in Array(UnsafeBufferPointer(start: image.rowStart(y), count: image.width * image.channelCount)) }
    }
}
