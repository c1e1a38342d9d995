import Foundation
import Testing
import ImagePipe
import ImagePipeStages
import TestSupport

/// A trace (`--trace`) observes a run without changing it: a run that streams still streams,
/// its file is the same, and the picture the trace shows after each stage is the one a run of
/// whole pictures shows there.
@Suite struct TracedRunTests {
    /// Pipelines of every kind the streamed run takes: area and point stages, a reduced decode,
    /// a turn through the tile cache with a tee, a picture turned by its EXIF orientation, a
    /// branch whose last group has stages, and alpha gained on the way.
    static let cases: [(text: String, orientation: UInt16, traced: [String])] = [
        ("blur 2 | grayscale | save out.jpg", 1, ["00-load", "01-blur", "02-grayscale", "03-save"]),
        ("fit 100x100 | save out.png", 1, ["00-load", "01-fit", "02-save"]),
        ("rotate 90 | tee {stem}-teed.png | resize 50% | save out.jpg", 1, ["00-load", "01-rotate", "02-tee", "03-resize", "04-save"]),
        ("grayscale | save out.png", 6, ["00-load", "01-grayscale", "02-save"]),
        ("branch { save a.png } { flip | resize 50% | save b.png }", 1, ["00-load", "01-branch", "02-save", "03-flip", "04-resize", "05-save"]),
        ("circle-crop | save out.png", 1, ["00-load", "01-circle-crop", "02-save"]),
    ]

    @Test(arguments: cases.indices)
    func aTraceObservesTheStreamedRunWithoutChangingIt(_ index: Int) throws {
        let (text, orientation, traced) = Self.cases[index]
        let directory = try TemporaryDirectory()
        let photo = try Synthetic.gradient(400, 300).encoded(as: .jpeg)
        let input = try directory.write(Synthetic.withExifOrientation(photo, orientation: orientation), to: "in.jpg")
        let pipeline = try StandardPlugins.compiler.compile(text)
        var runs: [String: [String: Image]] = [:]
        for kind in ["streamed", "whole"] {
            try FileManager.default.createDirectory(atPath: directory.file(kind), withIntermediateDirectories: true)
            var context = RunContext(input: input, output: nil, outputDirectory: directory.file(kind))
            context.wholePictures = kind == "whole"
            let trace = try TraceWriter(directory: directory.file("\(kind)-trace"), title: "in.jpg")
            context.trace = trace
            let prepared = try pipeline.prepare(in: context)
            #expect(pipeline.streams(in: context, prepared: prepared) == (kind == "streamed"), "\(text): \(kind)")
            try pipeline.run(in: context, prepared: prepared)
            try trace.finish(failure: nil)
            let files = try FileManager.default.contentsOfDirectory(atPath: directory.file("\(kind)-trace")).filter { $0.hasSuffix(".png") }.sorted()
            #expect(files == traced.map { $0 + ".png" }, "\(text): \(kind)")
            var pictures: [String: Image] = [:]
            for file in files { pictures["trace/" + file] = try Image.load(path: directory.file("\(kind)-trace/\(file)")) }
            for file in try FileManager.default.contentsOfDirectory(atPath: directory.file(kind)) {
                pictures[file] = try Image.load(path: directory.file("\(kind)/\(file)"))
            }
            runs[kind] = pictures
        }
        let (streamed, whole) = (try #require(runs["streamed"]), try #require(runs["whole"]))
        #expect(streamed.keys.sorted() == whole.keys.sorted(), "\(text)")
        for (name, picture) in streamed {
            let other = try #require(whole[name])
            #expect(picture.size == other.size && picture.hasAlpha == other.hasAlpha, "\(text): \(name) \(picture.size) \(other.size)")
            #expect(Self.bytes(of: picture) == Self.bytes(of: other), "\(text): \(name) differs from the run of whole pictures")
        }
    }

    /// A reduced decode is shown at the size decoded, with the picture's size beside.
    @Test func aStreamedTraceShowsTheReducedDecode() throws {
        let directory = try TemporaryDirectory()
        let input = try directory.write(Synthetic.gradient(800, 600).encoded(as: .jpeg), to: "big.jpg")
        var context = RunContext(input: input, output: directory.file("out.png"))
        let trace = try TraceWriter(directory: directory.file("trace"), title: "big.jpg")
        context.trace = trace
        let pipeline = try StandardPlugins.compiler.compile("fit 100x100")
        #expect(pipeline.streams(in: context, prepared: try pipeline.prepare(in: context)))
        try pipeline.run(in: context)
        try trace.finish(failure: nil)
        let page = try String(contentsOfFile: directory.file("trace/index.html"), encoding: .utf8)
        #expect(page.contains("0. load<br>800x600 (decoded at 200x150)"), "\(page)")
        #expect(try Image.load(path: directory.file("trace/00-load.png")).size == Size(200, 150))
    }

    static func bytes(of image: Image) -> [UInt8] {
        (0..<image.height).flatMap { y in Array(UnsafeBufferPointer(start: image.rowStart(y), count: image.width * image.channelCount)) }
    }
}
