import Testing
import ImagePipe
import ImagePipeCommand
import ImagePipeStages
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
        #expect(plan.decodeWorkSize.width < 1600 && plan.decodeWorkSize.width >= plan.decodeAtLeast!.width)
        #expect(!(try pipeline.plan(in: full)).shrinksOnLoad)

        // (A fit's decoder resamples in the JPEG's planes: PlaneResamplingTests.)
        let load = try #require(pipeline.source as? Load)
        let reduced = try load.load(in: shrinking, description: nil, atLeast: plan.decodeAtLeast, resampling: plan.decodeResampling)
        #expect(reduced.size == plan.decodeSize, "the decoder gives the planned size")
        let description = try pipeline.source.describe(in: shrinking)
        let fast = try Pipeline(transforms: pipeline.transforms).applyToReduced(
            ReducedImage(image: reduced, fullSize: plan.sourceSize, mapping: plan.mapping(toDecoded: reduced.size, description: description)))
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

/// Shrink-on-load maps the reduced decode onto the full picture exactly: libjpeg rounds reduced
/// sides up (1283 px at 1/4 is 321 px standing for 320.75), and an EXIF turn or flip puts that
/// partial pixel first. Mapped exactly, a reduced decode matches a full decode more closely
/// than the reduced picture stretched over the full one does.
@Suite struct ExactReductionTests {
    /// Sharp-edged bars, 32 px apart both ways: any misplacement shows at every edge.
    static func bars(_ width: Int, _ height: Int) throws -> Image {
        try Synthetic.image(width, height) { x, y in
            let v: UInt8 = (x / 16 + y / 16) % 2 == 0 ? 30 : 225
            return Color(red: v, green: v, blue: UInt8(x * 255 / width))
        }
    }

    static func meanDifference(_ a: Image, _ b: Image) -> Double {
        var sum = 0
        for y in 0..<a.height {
            for x in 0..<a.width {
                let p = a.pixel(x: x, y: y), q = b.pixel(x: x, y: y)
                sum += abs(Int(p.red) - Int(q.red)) + abs(Int(p.green) - Int(q.green)) + abs(Int(p.blue) - Int(q.blue))
            }
        }
        return Double(sum) / Double(a.width * a.height * 3)
    }

    @Test(arguments: [1, 2, 3, 6, 8])
    func reducedDecodeIsPlacedExactly(orientation: Int) throws {
        let directory = try TemporaryDirectory()
        let jpeg = try Self.bars(1283, 963).encoded(as: .jpeg, options: SaveOptions(quality: 98))
        let path = try directory.write(Synthetic.withExifOrientation(jpeg, orientation: UInt16(orientation)), to: "bars.jpg")
        let pipeline = try StandardPlugins.compiler.compile("fit 160x160")
        let context = RunContext(input: path)
        let plan = try pipeline.plan(in: context)
        let description = try pipeline.source.describe(in: context)
        #expect(description.reduction(ofDecoded: plan.decodeWorkSize) == 4, "1283x963 for 160 px with 2× headroom decodes at 1/4")

        var full = context
        full.loadOptions.shrinkOnLoad = false
        let reference = try pipeline.apply(to: pipeline.source.load(in: full, description: nil, atLeast: nil))
        let reduced = try pipeline.source.load(in: context, description: description, atLeast: plan.decodeAtLeast)
        let exact = try pipeline.transforms[0].apply(to: ReducedImage(
            image: reduced, fullSize: plan.sourceSize, mapping: description.mapping(toDecoded: reduced.size)))
        let stretched = try pipeline.transforms[0].apply(to: ReducedImage(
            image: reduced, fullSize: plan.sourceSize,
            mapping: PixelMapping(scaleX: Double(reduced.width) / Double(plan.sourceSize.width),
                                  scaleY: Double(reduced.height) / Double(plan.sourceSize.height))))
        let exactError = Self.meanDifference(exact, reference), stretchedError = Self.meanDifference(stretched, reference)
        #expect(exactError < 0.75 * stretchedError, "orientation \(orientation): exact \(exactError), stretched \(stretchedError)")
        #expect(exactError < 3, "orientation \(orientation): mean difference \(exactError) from a full decode")
        // Where the orientation flips an axis, leaving out the partial pixel's offset shows.
        var unshifted = description.mapping(toDecoded: reduced.size)
        guard unshifted.offsetX != 0 || unshifted.offsetY != 0 else { return }
        (unshifted.offsetX, unshifted.offsetY) = (0, 0)
        let unshiftedError = Self.meanDifference(try pipeline.transforms[0].apply(to: ReducedImage(
            image: reduced, fullSize: plan.sourceSize, mapping: unshifted)), reference)
        #expect(exactError < unshiftedError - 0.1, "orientation \(orientation): exact \(exactError), unshifted \(unshiftedError)")
    }
}
