import Testing
import ImagePipe
import ImagePipeCommand
import TestSupport

/// The planner decodes a JPEG reduced when the first stage only shrinks; the result keeps the
/// plan's sizes and stays within a small tolerance of a full decode.
@Suite struct ShrinkOnLoadTests {
    @Test(arguments: ["fit 100x100", "slice 60x40", "circle-crop size=50", "crop-editor 90x160"])
    func reducedDecodeMatchesFullDecode(stage: String) throws {
        let directory = try TemporaryDirectory()
        let path = try directory.write(Synthetic.gradient(1600, 1200).encoded(as: .jpeg, options: SaveOptions(quality: 95)), to: "big.jpg")
        let pipeline = try StandardPlugins.compiler.compile(stage)
        let shrinking = RunContext(input: path)
        var full = shrinking
        full.loadOptions.shrinkOnLoad = false

        let plan = try pipeline.plan(in: shrinking)
        #expect(plan.shrinksOnLoad, "\(stage)")
        #expect(plan.decodeSize.width < 1600 && plan.decodeSize.width >= plan.decodeAtLeast!.width)
        #expect(!(try pipeline.plan(in: full)).shrinksOnLoad)

        let reduced = try pipeline.source.load(in: shrinking, description: nil, atLeast: plan.decodeAtLeast)
        #expect(reduced.size == plan.decodeSize, "the decoder gives the planned size")
        let description = try pipeline.source.describe(in: shrinking)
        let fast = try Pipeline(transforms: pipeline.transforms).applyToReduced(
            ReducedImage(image: reduced, fullSize: plan.sourceSize, mapping: description.mapping(toDecoded: reduced.size)))
        let slow = try pipeline.apply(to: pipeline.source.load(in: full, description: nil, atLeast: nil))
        #expect(fast.size == slow.size && fast.size == plan.outputSize)
        #expect(SampleTests.largestDifference(fast, slow) <= 6, "\(stage)")
    }

    @Test func exifTurnedPicturesShrinkTheRightWay() throws {
        let directory = try TemporaryDirectory()
        let stored = try Synthetic.halves(1600, 800) // red left, blue right; turned 90° clockwise: red on top
        let path = try directory.write(Synthetic.withExifOrientation(stored.encoded(as: .jpeg), orientation: 6), to: "turned.jpg")
        let pipeline = try StandardPlugins.compiler.compile("fit 100x100 | save out.png")
        let plan = try pipeline.plan(in: RunContext(input: path))
        #expect(plan.sourceSize == Size(800, 1600))
        #expect(plan.decodeSize == Size(100, 200))
        try pipeline.run(in: RunContext(input: path, outputDirectory: directory.path))
        let result = try Image.load(path: directory.file("out.png"))
        #expect(result.size == Size(50, 100))
        #expect(Synthetic.close(result.pixel(x: 25, y: 10), Color(red: 255, green: 0, blue: 0), tolerance: 40))
        #expect(Synthetic.close(result.pixel(x: 25, y: 90), Color(red: 0, green: 0, blue: 255), tolerance: 40))
    }

    @Test func onlyJPEGsShrinkAndOnlyForShrinkingStages() throws {
        let directory = try TemporaryDirectory()
        let png = try directory.write(Synthetic.gradient(800, 600).encoded(as: .png), to: "big.png")
        let jpeg = try directory.write(Synthetic.gradient(800, 600).encoded(as: .jpeg), to: "big.jpg")
        #expect(!(try StandardPlugins.compiler.compile("fit 100x100").plan(in: RunContext(input: png))).shrinksOnLoad)
        #expect(!(try StandardPlugins.compiler.compile("fit 1000x1000").plan(in: RunContext(input: jpeg))).shrinksOnLoad)
        #expect(!(try StandardPlugins.compiler.compile("rotate angle=3 | fit 10x10").plan(in: RunContext(input: jpeg))).shrinksOnLoad)
    }
}

extension Pipeline {
    /// The transforms on a reduced decode, as `run` does after shrink-on-load.
    func applyToReduced(_ source: ReducedImage) throws -> Image {
        var current = try transforms[0].apply(to: source)
        for transform in transforms.dropFirst() { current = try transform.apply(to: current) }
        return current
    }
}
