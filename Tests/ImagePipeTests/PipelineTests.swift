import Foundation
import Testing
import ImagePipe
import TestSupport

@Suite struct PipelineTests {
    @Test func planGivesEachStageItsSizes() throws {
        let pipeline = try TestRegistry.compiler.compile("half | crop 20x10 at=5,5 | half")
        let plan = try pipeline.plan(sourceSize: Size(101, 51))
        #expect(plan.steps.map(\.input) == [Size(101, 51), Size(51, 26), Size(20, 10)])
        #expect(plan.steps.map(\.output) == [Size(51, 26), Size(20, 10), Size(10, 5)])
        #expect(plan.outputSize == Size(10, 5))
    }

    /// apply(to:) writes nothing, so a pipeline that names files to write is refused instead of
    /// silently not writing them; applyTransforms(to:) says it means the transforms alone.
    @Test func applyRefusesPipelinesThatWrite() throws {
        let picture = try Synthetic.gradient(20, 10)
        for text in ["half | tee preview.png | half", "half | save out.png"] {
            let pipeline = try TestRegistry.compiler.compile(text)
            let error = try #require(throws: StageError.self) { try pipeline.apply(to: picture) }
            #expect(error.message.hasPrefix("this pipeline writes files ("), "\(error.message)")
            #expect(try pipeline.applyTransforms(to: picture).size.width < 20)
        }
        #expect(try TestRegistry.compiler.compile("half | save").apply(to: picture).size == Size(10, 5))
    }

    @Test func planErrorsCarryTheStageLocation() throws {
        let pipeline = try TestRegistry.compiler.compile("load\n  crop 20x10 at=40,0\n", file: "cut.pipe")
        let error = try #require(throws: PipelineError.self) { try pipeline.plan(sourceSize: Size(50, 50)) }
        #expect(error.description == "cut.pipe:2:3: error: crop: 20x10+40+0 lies outside the 50x50 picture")
    }

    @Test func planReadsOnlyTheHeader() throws {
        let directory = try TemporaryDirectory()
        let path = try directory.write(Synthetic.gradient(30, 20).encoded(as: .png), to: "in.png")
        let pipeline = try TestRegistry.compiler.compile("half")
        let plan = try pipeline.plan(in: RunContext(input: path))
        #expect(plan.sourceSize == Size(30, 20))
        #expect(plan.outputSize == Size(15, 10))
    }

    @Test func runWritesWhatThePlanSaid() throws {
        let directory = try TemporaryDirectory()
        let input = try directory.write(Synthetic.gradient(30, 20).encoded(as: .png), to: "in.png")
        let pipeline = try TestRegistry.compiler.compile("crop 10x8 at=20,12 | save \"\(directory.file("out.jpg"))\" quality=95")
        let run = try pipeline.run(in: RunContext(input: input))
        let (plan, output) = (run.plan, run.outputs[0])
        #expect(output == directory.file("out.jpg"))
        let result = try Image.load(path: output)
        #expect(result.size == plan.outputSize)
        #expect(try Synthetic.close(result.pixel(x: 0, y: 0), Synthetic.gradient(30, 20).pixel(x: 20, y: 12), tolerance: 10))
    }

    @Test func applyWorksOnImagesInMemory() throws {
        let pipeline = Pipeline(transforms: [TestHalf(), TestHalf()])
        #expect(try pipeline.apply(to: Synthetic.gradient(17, 9)).size == Size(5, 3))
    }

    /// A stage that reports the context it runs in: its scaling, and whether it was told to stop.
    private struct ContextProbe: Transform, DeclaredStage {
        static let declaration = StageDeclaration("context-probe", summary: "Reports its context (test stage)", start: ContextProbe(), [])
        func outputSize(for input: Size) -> Size { StageContext.current.scaling == .fast ? Size(1, 1) : input }
        func makeRows(_ rows: Range<Int>, from input: StageInput) throws -> Image {
            let image = input.pixels
            try StageContext.checkCancelled()
            return try image.scaled(to: outputSize(for: image.size))
        }
    }

    /// An embedder's context reaches the stages of `apply(to:)`: bound around the call (its
    /// cancellation kept, only the scaling changed), or given.
    @Test func applyWorksInTheEmbeddersContext() throws {
        let pipeline = Pipeline(transforms: [ContextProbe()])
        let picture = try Synthetic.gradient(8, 8)
        let stopped = Cancellation()
        stopped.cancel()
        #expect(throws: ImageError.self) { try StageContext(cancellation: stopped).bound { try pipeline.apply(to: picture) } }
        #expect(throws: ImageError.self) { try pipeline.apply(to: picture, in: StageContext(cancellation: stopped)) }
        #expect(try pipeline.apply(to: picture).size == Size(8, 8))
        #expect(try pipeline.apply(to: picture, scaling: .fast).size == Size(1, 1))
        #expect(try pipeline.applyTransforms(to: picture, in: StageContext(scaling: .fast)).size == Size(1, 1))
    }

    /// The library's refusals by a run setting name no command-line option: they carry the
    /// remedy for the front end to word (the command's wording is in ImagePipeCommandTests).
    @Test func refusalsBySettingsNameTheirRemedyNotAnOption() throws {
        let directory = try TemporaryDirectory()
        let input = try directory.write(Synthetic.gradient(40, 40).encoded(as: .png), to: "in.png")
        // Standard output takes the input's format, unless it cannot be written.
        let heic = directory.file("in.heic")
        try HEICWriter.write(Synthetic.gradient(40, 40), to: heic)
        let errors: [(any ImagePipeError, Remedy)] = [
            (try #require(throws: ImageError.self) { try Image.load(path: input, options: LoadOptions(maxPixels: 100)) }, .raisePixelLimit),
            (try #require(throws: ImageError.self) { var late = LoadOptions(); late.deadline = .now - .seconds(1); _ = try Image.load(path: input, options: late) }, .raiseTimeLimit),
            (try #require(throws: ImageError.self) { var small = LoadOptions(); small.maxInputBytes = 10; _ = try Image.load(path: input, options: small) }, .raiseInputLimit),
            (try #require(throws: PipelineError.self) { try TestRegistry.compiler.compile("half").run(in: RunContext(input: heic, output: "-")) }, .nameOutputFormat),
        ]
        for (error, remedy) in errors {
            #expect(error.remedy == remedy, "\(error)")
            #expect(!"\(error)".contains("--"), "\(error)")
        }
    }

    @Test func missingInputOrOutputIsAClearError() throws {
        let pipeline = try TestRegistry.compiler.compile("half")
        #expect(throws: PipelineError.self) { try pipeline.plan(in: RunContext()) }
        let directory = try TemporaryDirectory()
        let input = try directory.write(Synthetic.gradient(4, 4).encoded(as: .png), to: "in.png")
        let error = try #require(throws: PipelineError.self) { try pipeline.run(in: RunContext(input: input)) }
        #expect(error.description == "save: no output: give the run an output, or give save a path")
        #expect(error.remedy == .nameOutput)
    }

    @Test func formatComesFromSaveThenCommandLineThenExtension() throws {
        let context = RunContext(output: "x", outputFormat: .jpeg)
        #expect(try Save().target(in: context).format == .jpeg)
        #expect(try Save(format: .tiff).target(in: context).format == .tiff)
        // An extension that names another format than the one asked for is refused.
        #expect(throws: StageError.self) { try Save().target(in: RunContext(output: "x.png", outputFormat: .jpeg)) }
        #expect(try Save().target(in: RunContext(output: "x.jpg", outputFormat: .jpeg)).format == .jpeg)
        #expect(try Save().target(in: RunContext(output: "x.TIF")).format == .tiff)
        #expect(try Save().target(in: RunContext(output: "x.gif")).format == .gif)
        #expect(try Save().target(in: RunContext(output: "x.AVIF")).format == .avif)
        #expect(throws: StageError.self) { try Save().target(in: RunContext(output: "x.heic")) }
        #expect(throws: StageError.self) { try Save().target(in: RunContext(output: "-")) }
    }
}

@Suite struct RegistryTests {
    @Test func duplicateStageNamesAreRefusedWholePlugin() throws {
        var registry = Registry(plugins: [Registry.core])
        let clash = Plugin(name: "clash", summary: "", stages: [TestHalf.self, Load.self])
        let error = try #require(throws: RegistryError.self) { try registry.register(clash) }
        #expect(error.description == "plugin 'clash': stage 'load' is already defined by plugin 'core'")
        #expect(registry.entry(named: "half") == nil, "nothing of a refused plugin is registered")
        let twice = Plugin(name: "twice", summary: "", stages: [TestHalf.self, TestHalf.self])
        #expect(throws: RegistryError.self) { try registry.register(twice) }
    }

    @Test func lookupAndListing() throws {
        let registry = TestRegistry.registry
        #expect(registry.entry(named: "crop")?.plugin == "test")
        #expect(registry.stageNames == ["branch", "crop", "every-type", "half", "load", "save", "tee"])
        #expect(registry.plugins.map(\.name) == ["core", "test"])
    }
}

@Suite struct PipelineBuilderTests {
    @Test func buildsTransformsInOrderWithConditionsAndLoops() throws {
        let small = true
        let pipeline = try Pipeline {
            TestHalf()
            if small { TestHalf() }
            for _ in 0..<2 { TestHalf() }
            try TestCrop.parse([RawArgument("2x2")])
        }
        #expect(pipeline.transforms.map(\.text) == ["half", "half", "half", "half", "crop 2x2"])
        #expect(try pipeline.apply(to: Synthetic.gradient(64, 64)).size == Size(2, 2))
    }
}
