import Testing
import ImagePipe
import ImagePipeCommand
import ImagePipeStages
import CircleCrop
import FitZoom
import TestSupport

/// The README's Swift examples, compiled and run, so the README cannot drift from the API.
@Suite struct ReadmeExampleTests {
    struct Invert: Transform, DeclaredStage {
        static let declaration = StageDeclaration("inverse", summary: "Invert the colours", start: Invert(), [])
        func outputSize(for input: Size) -> Size { input }
        func makeRows(_ rows: Range<Int>, from input: StageInput) throws -> Image {
            let image = input.pixels
            return try Image.make(size: image.size, hasAlpha: image.hasAlpha) { writer in
                for y in 0..<image.height {
                    let source = image.row(y), target = writer.row(y)
                    for i in 0..<source.count {
                        let isAlpha = image.hasAlpha && i % 4 == 3
                        target[i] = isAlpha ? source[i] : 255 - source[i]
                    }
                }
            }
        }
    }

    @Test func embeddingExample() throws {
        let directory = try TemporaryDirectory()
        let photo = try directory.write(Synthetic.gradient(300, 200).encoded(as: .jpeg), to: "photo.jpg")
        let pipeline = try StandardPlugins.compiler.compile("fit 1280x720 | circle-crop size=256")
        try pipeline.run(in: RunContext(input: photo, output: directory.file("avatar.png")))
        #expect(try Image.load(path: directory.file("avatar.png")).size == Size(256, 256))

        let image = try Image.load(path: photo)
        let preview = try Pipeline(transforms: [FitStage(1280, 720)]).apply(to: image)
        let png: [UInt8] = try preview.encoded(as: .png)
        #expect(try Image.decode(png).size == Size(1080, 720))

        let plan = try pipeline.plan(in: RunContext(input: photo))
        #expect(plan.steps.map { "\($0.stage.text): \($0.input) → \($0.output)" }
            == ["fit 1280x720: 300x200 → 1080x720", "circle-crop size=256: 1080x720 → 256x256"])

        let editor = CropViewport(viewport: Size(375, 667), gap: 20, imageSize: image.size)
        let state = editor.clamp(zoom: 1.3 * editor.minimumZoom, offset: Point(260, 50))
        let (center, radius) = editor.circleInImage(state)
        #expect(radius > 0 && center.x > 0)
    }

    @Test func resultBuilderExample() throws {
        let jpegBytes = try Synthetic.gradient(300, 200).encoded(as: .jpeg)
        let avatar = try Pipeline {
            FitStage(1280, 720)
            try CircleCropStage(size: 256)
        }
        let png = try avatar.apply(to: Image.decode(jpegBytes)).encoded(as: .png)
        #expect(try ImageHeader.read(bytes: png) == ImageHeader(storedSize: Size(256, 256), format: .png))
    }

    /// The guide's minimal stage (Samples/CustomStage/README.md), word for word, so the guide
    /// cannot drift from the API either.
    struct PosterizeStage: Transform, DeclaredStage {
        public static let declaration = StageDeclaration("posterize", summary: "Reduce each channel to a few levels", example: "posterize 3", start: PosterizeStage(), [
            Param(\.levels, "levels", .integer(2...64), default: 4, positional: true, help: "Levels per channel."),
        ])

        public var levels: Int

        public init(levels: Int = 4) { self.levels = levels }

        public func outputSize(for input: Size) -> Size { input }

        public func makeRows(_ rows: Range<Int>, from input: StageInput) throws -> Image {
            let image = input.pixels, step = 255.0 / Double(levels - 1), channels = image.channelCount
            return try Image.make(size: image.size, hasAlpha: image.hasAlpha) { writer in
                for y in 0..<image.height {
                    let source = image.row(y), target = writer.row(y)
                    for i in 0..<source.count {
                        let isAlpha = channels == 4 && i % 4 == 3
                        target[i] = isAlpha ? source[i] : UInt8((Double(source[i]) / step).rounded() * step)
                    }
                }
            }
        }
    }

    @Test func guideExample() throws {
        let picture = try Image.make(size: Size(2, 1), hasAlpha: false) { writer in
            let row = writer.row(0)
            for (index, value) in [40, 40, 40, 200, 200, 200].enumerated() { row[index] = UInt8(value) }
        }
        let result = try PosterizeStage(levels: 2).apply(to: picture)
        #expect(result.pixel(x: 0, y: 0) == .black)
        #expect(result.pixel(x: 1, y: 0) == .white)
        #expect(throws: ArgumentError.self) { try PosterizeStage.parse([RawArgument("1")]) }
        #expect(PosterizeStage(levels: 3).text == "posterize 3")
        #expect(PosterizeStage().text == "posterize")

        // The guide's picture with alpha, and its registry of the stock stages and the new one.
        let translucent = try Image.make(size: Size(2, 1), hasAlpha: true) { writer in
            let row = writer.row(0)
            for (index, value) in [255, 0, 0, 255, 0, 0, 255, 64].enumerated() { row[index] = UInt8(value) }
        }
        #expect(translucent.pixel(x: 1, y: 0) == Color(red: 0, green: 0, blue: 255, alpha: 64))
        let registry = Registry(plugins: StandardPlugins.all + [Plugin(name: "posterize", summary: "", stages: [PosterizeStage.self])])
        let pipeline = try PipelineCompiler(registry: registry).compile("fit 64x64 | posterize 3")
        #expect(try pipeline.apply(to: Synthetic.gradient(128, 64)).size == Size(64, 32))
    }

    /// A stage written in a test, registered beside the stock ones, as the guide does.
    @Test func customStageExample() throws {
        let registry = Registry(plugins: StandardPlugins.all + [Plugin(name: "mine", summary: "", stages: [Invert.self])])
        let pipeline = try PipelineCompiler(registry: registry).compile("inverse")
        let result = try pipeline.apply(to: Synthetic.image(2, 1, alpha: true) { _, _ in Color(red: 10, green: 20, blue: 30, alpha: 40) })
        #expect(result.pixel(x: 1, y: 0) == Color(red: 245, green: 235, blue: 225, alpha: 40))
    }

    /// The pixel helpers' example (README, Extending), on an opaque picture.
    @Test func pixelHelpersExample() throws {
        let image = try Synthetic.gradient(40, 30)
        let negative = try image.mapChannels((0...255).map { UInt8(255 - $0) })
        let soft = try Convolution.gaussian(sigma: 2).apply(to: image)
        let glow = try Convolution.gaussian(sigma: 8).apply(to: image) { row in
            for i in 0..<row.width * row.channels { row.target[i] = max(row.source[i], PremultipliedPixels.byte(row.filtered[i / row.channels][i % row.channels] * 255)) }
        }
        #expect(negative.pixel(x: 0, y: 0).red == 255 - image.pixel(x: 0, y: 0).red)
        #expect(soft.size == image.size && glow.pixel(x: 20, y: 15).red >= image.pixel(x: 20, y: 15).red)
    }
}
