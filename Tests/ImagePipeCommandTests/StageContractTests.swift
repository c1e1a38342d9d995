import Testing
import ImagePipe
import ImagePipeCommand
import ImagePipeStages
import TestSupport

/// What every stock stage promises: its example parses and round-trips through its canonical
/// text, and on RGB and RGBA pictures from one pixel to thin strips it either produces exactly
/// the size its plan said or refuses with a StageError.
@Suite struct StageContractTests {
    static let transforms: [String] = StandardPlugins.registry.stageNames.filter { name in
        let example = StandardPlugins.registry.entry(named: name)!.schema.example
        return (try? StandardPlugins.compiler.compile(example))?.transforms.contains { $0.stageSchema.name == name } == true
    }

    @Test(arguments: StandardPlugins.registry.stageNames)
    func exampleRoundTripsThroughCanonicalText(name: String) throws {
        let schema = StandardPlugins.registry.entry(named: name)!.schema
        let compiled = try StandardPlugins.compiler.compile(schema.example)
        let stage = compiled.stages.first { $0.stageSchema.name == name }!
        let again = try StandardPlugins.compiler.compile(stage.text).stages.first { $0.stageSchema.name == name }!
        #expect(again.isEqual(to: stage), "\(schema.example) → \(stage.text)")
    }

    /// A stage that says it only moves pixels (`rearrangement(for:)`, which lossless JPEG runs
    /// trust) moves them exactly so: every pixel lands where its turn or crop says.
    @Test(arguments: ["rotate 90", "rotate 180", "rotate 270", "rotate angle=-90 canvas=expand", "flip", "flop", "crop 2,1,5x3",
                      "blur 1", "rotate angle=30"])
    func aRearrangementIsWhatTheStageDoes(text: String) throws {
        let stage = try #require(try StandardPlugins.compiler.compile(text).transforms.first)
        let source = try Synthetic.image(9, 6) { x, y in Color(red: UInt8(x * 20), green: UInt8(y * 30), blue: UInt8(x * y)) }
        guard let rearrangement = try stage.rearranging?.rearrangement(for: source.size) else {
            #expect(text.hasPrefix("blur") || text.contains("30"), "\(text) says it makes new pixels")
            return
        }
        let result = try stage.apply(to: source)
        for y in 0..<source.height {
            for x in 0..<source.width {
                switch rearrangement {
                case let .orient(turn):
                    let to = turn.map(Rect(x: x, y: y, width: 1, height: 1), in: source.size)
                    #expect(result.pixel(x: to.x, y: to.y) == source.pixel(x: x, y: y), "\(text): \(x),\(y)")
                case let .crop(rect):
                    guard (rect.x..<rect.x + rect.width).contains(x), (rect.y..<rect.y + rect.height).contains(y) else { continue }
                    #expect(result.pixel(x: x - rect.x, y: y - rect.y) == source.pixel(x: x, y: y), "\(text): \(x),\(y)")
                }
            }
        }
    }

    @Test(arguments: transforms)
    func tinyAndThinPicturesWorkOrFailClearly(name: String) throws {
        let example = StandardPlugins.registry.entry(named: name)!.schema.example
        let pipeline = try StandardPlugins.compiler.compile(example)
        for size in [Size(1, 1), Size(1, 9), Size(9, 1), Size(2, 3), Size(16, 16)] {
            for alpha in [false, true] {
                let image = try Synthetic.gradient(size.width, size.height, alpha: alpha)
                do {
                    let plan = try pipeline.plan(sourceSize: size), planned = plan.outputSize
                    let result = try pipeline.apply(to: image)
                    // A pixel-dependent size (trim) is an upper bound.
                    #expect(plan.isExact ? result.size == planned : result.size.width <= planned.width && result.size.height <= planned.height,
                            "\(example) on \(size)")
                    // Every stage keeps alpha but the editor, which renders an opaque screen, and
                    // the stages whose work is to drop it.
                    if alpha && !["crop-editor", "flatten", "remove-alpha"].contains(name) { #expect(result.hasAlpha, "\(example) dropped alpha on \(size)") }
                } catch let error as PipelineError {
                    #expect(!error.message.isEmpty)
                }
            }
        }
    }

    @Test func jpegOutputOfAlphaFlattensWithAWarning() throws {
        let directory = try TemporaryDirectory()
        _ = try directory.write(Synthetic.gradient(40, 30).encoded(as: .png), to: "in.png")
        let result = try CommandRunner.run(["run", "-e", "circle-crop", "in.png", "-o", "avatar.jpg"], in: directory.path)
        #expect(result.status == 0)
        #expect(result.standardError == "imagepipe: warning: avatar.jpg: JPEG has no alpha; flattened onto white\n")
        let flattened = try Image.load(path: directory.file("avatar.jpg"))
        #expect(!flattened.hasAlpha)
        // White within what JPEG's 4:2:0 at quality 80 carries over from the circle's edge.
        #expect(Synthetic.close(flattened.pixel(x: 0, y: 0), .white, tolerance: 10))
    }
}
