import Testing
import ImagePipe
import ImagePipeCommand
import CircleCrop
import FitZoom
import TestSupport

/// The README's Swift examples, compiled and run, so the README cannot drift from the API.
@Suite struct ReadmeExampleTests {
    struct Invert: Transform {
        static let schema = Schema(name: "invert", summary: "Invert the colours", parameters: [])
        init(arguments: Arguments) {}
        var arguments: Arguments { Arguments() }
        func outputSize(for input: Size) -> Size { input }
        func apply(to image: Image) throws -> Image {
            try Image.make(size: image.size, hasAlpha: image.hasAlpha) { writer in
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
        #expect(try ImageHeader.read(bytes: png) == ImageHeader(storedSize: Size(256, 256), format: "png"))
    }

    /// A stage written in a test, registered beside the stock ones, as the guide does.
    @Test func customStageExample() throws {
        let registry = Registry(plugins: StandardPlugins.all + [Plugin(name: "mine", summary: "", stages: [Invert.self])])
        let pipeline = try PipelineCompiler(registry: registry).compile("invert")
        let result = try pipeline.apply(to: Synthetic.image(2, 1, alpha: true) { _, _ in Color(red: 10, green: 20, blue: 30, alpha: 40) })
        #expect(result.pixel(x: 1, y: 0) == Color(red: 245, green: 235, blue: 225, alpha: 40))
    }
}
