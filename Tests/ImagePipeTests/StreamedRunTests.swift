import Foundation
import Testing
@testable import ImagePipe
@testable import ImagePipeCore
import TestSupport

/// `strip-invert`: inverts the colors, a row-local stage for the streamed run. It notes the
/// height of every picture it is given (the strips), can fail once it has seen `failAfterRows`
/// rows, and can break its promise (`misbehave`: it then drops a row).
struct StripInvert: Transform, DeclaredStage {
    static let declaration = StageDeclaration("strip-invert", summary: "Invert, noting each picture's height (test stage)",
                                              start: StripInvert(), [])
    let heights = Locked<[Int]>([])
    var failAfterRows: Int?
    var misbehave = false

    static func == (a: Self, b: Self) -> Bool { a.failAfterRows == b.failAfterRows && a.misbehave == b.misbehave }
    var stageClass: StageClass { .point }
    func outputSize(for input: Size) -> Size { input }

    func makeRows(_ rows: Range<Int>, from input: StageInput) throws -> Image {
        let image = input.pixels
        let seen = heights.withLock { heights in
            heights.append(image.height)
            return heights.reduce(0, +)
        }
        if let failAfterRows, seen > failAfterRows { throw StageError("gave up after \(failAfterRows) rows") }
        if misbehave { return try image.cropped(to: Rect(x: 0, y: 0, width: image.width, height: image.height - 1)) }
        let inverse = (0...255).map { UInt8(255 - $0) }
        return try image.mapChannels(inverse)
    }
}

/// `strip-box`: each output row the mean of the input rows `radius` above and below it (edges
/// clamped), an area stage for the streamed run. It notes the height of every picture it is
/// given (windows, in a streamed run).
struct StripBox: Transform, DeclaredStage {
    static let declaration = StageDeclaration("strip-box", summary: "A vertical box mean (test stage)", start: StripBox(), [])
    let heights = Locked<[Int]>([])
    var radius = 3

    static func == (a: Self, b: Self) -> Bool { a.radius == b.radius }
    var stageClass: StageClass { .area(radius: radius) }
    func outputSize(for input: Size) -> Size { input }

    func makeRows(_ rows: Range<Int>, from input: StageInput) throws -> Image {
        let image = input.pixels
        heights.withLock { $0.append(image.height) }
        let rowBytes = image.width * image.channelCount, local = input.local(rows)
        return try Image.make(size: Size(image.width, rows.count), hasAlpha: image.hasAlpha) { writer in
            for y in local {
                let target = writer.row(y - local.lowerBound)
                for i in 0..<rowBytes {
                    var sum = 0
                    for k in -radius...radius { sum += Int(image.rowStart(min(max(y + k, 0), image.height - 1))[i]) }
                    target[i] = UInt8(sum / (2 * radius + 1))
                }
            }
        }
    }
}

// A guard against a handoff that hangs, not a speed bound: under ThreadSanitizer on a busy
// machine a test here took past one minute.
@Suite(.timeLimit(.minutes(10))) struct StreamedRunTests {
    /// A JPEG of 240x200 with detail in every strip.
    static func photo(in directory: TemporaryDirectory, name: String = "in.jpg", metadata: ImageMetadata = ImageMetadata()) throws -> String {
        let picture = try Synthetic.image(240, 200) { x, y in
            Color(red: UInt8((x * 7 + y * 3) % 256), green: UInt8((x * y) % 251), blue: UInt8((y * 5) % 256))
        }
        return try directory.write(picture.withMetadata(metadata).encoded(as: .jpeg, options: SaveOptions(quality: 95)), to: name)
    }

    /// The file the pipeline writes, streamed (no observer) or the ordinary way (an observer
    /// of whole pictures turns streaming off).
    static func output(of pipeline: Pipeline, input: String, streamed: Bool, in directory: TemporaryDirectory, format: ImageFormat = .jpeg) throws -> [UInt8] {
        let path = directory.file((streamed ? "streamed." : "ordinary.") + format.rawValue)
        var context = RunContext(input: input, output: path)
        context.wholePictures = !streamed
        try pipeline.run(in: context)
        return Array(try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    @Test func rowLocalStagesGetStripsAndTheFileIsTheOrdinaryRunsByteForByte() throws {
        let directory = try TemporaryDirectory()
        let input = try Self.photo(in: directory)
        let stage = StripInvert()
        let pipeline = Pipeline(transforms: [stage], sink: Save(options: SaveOptions(quality: 90)))
        let streamed = try Self.output(of: pipeline, input: input, streamed: true, in: directory)
        #expect(stage.heights.withLock { $0 } == Array(repeating: Pipeline.streamedStripRows, count: 6) + [8])
        stage.heights.withLock { $0 = [] }
        let ordinary = try Self.output(of: pipeline, input: input, streamed: false, in: directory)
        #expect(stage.heights.withLock { $0 } == [200])
        #expect(streamed == ordinary)
        // And the inversion is really there: the first pixel is the input's inverted, within JPEG's loss.
        let source = try Image.load(path: input).pixel(x: 0, y: 0), result = try Image.decode(streamed).pixel(x: 0, y: 0)
        #expect(Synthetic.close(result, Color(red: 255 - source.red, green: 255 - source.green, blue: 255 - source.blue), tolerance: 6))
    }

    /// A picture taller than its ring (row y in slot y % ring, rewritten once the encoder has let
    /// go of it) streams to the ordinary run's bytes; cut, or failing in a stage, it ends as the
    /// ordinary run does, the decoder waiting for room let go.
    @Test func aPictureTallerThanItsRingStreamsToTheSameBytes() throws {
        let directory = try TemporaryDirectory()
        let picture = try Synthetic.image(12000, 700) { x, y in Color(red: UInt8((x * 7 + y * 3) % 256), green: UInt8((x * y) % 251), blue: UInt8((y * 5) % 256)) }
        let input = try directory.write(picture.encoded(as: .jpeg, options: SaveOptions(quality: 90)), to: "wide.jpg")
        let ring = Pipeline.ringRows(rowStride: 36000, height: 700)
        #expect(ring > 0 && ring < 700 && ring % Pipeline.streamedStripRows == 0, "\(ring) rows")
        let stage = StripInvert()
        let pipeline = Pipeline(transforms: [stage], sink: Save(options: SaveOptions(quality: 90)))
        let streamed = try Self.output(of: pipeline, input: input, streamed: true, in: directory)
        #expect(stage.heights.withLock { $0.count } == (700 + 31) / 32)
        #expect(streamed == (try Self.output(of: pipeline, input: input, streamed: false, in: directory)))
        let whole = try Data(contentsOf: URL(fileURLWithPath: input))
        let cut = try directory.write(Array(whole.prefix(whole.count * 8 / 10)), to: "cut.jpg")
        let output = directory.file("out.jpg")
        let error = try #require(throws: (any Error).self) { try pipeline.run(in: RunContext(input: cut, output: output)) }
        #expect("\(error)".contains("cut.jpg"), "\(error)")
        // Without Huffman optimization libjpeg writes as it goes: its output has grown past the
        // first buffer when the rows stop (libjpeg's memory destination then left a freed pointer
        // behind, and the failed encode freed it again).
        let plain = Pipeline(transforms: [StripInvert()], sink: Save(options: SaveOptions(quality: 90, optimizeCoding: false)))
        let cutShort = try #require(throws: (any Error).self) { try plain.run(in: RunContext(input: cut, output: output)) }
        #expect("\(cutShort)".contains("cut.jpg"), "\(cutShort)")
        let failing = try #require(throws: PipelineError.self) {
            try Pipeline(transforms: [StripInvert(failAfterRows: 100)]).run(in: RunContext(input: input, output: output))
        }
        #expect(failing.message == "gave up after 100 rows", "\(failing)")
        #expect(!FileManager.default.fileExists(atPath: output))
    }

    /// Area stages stream too: each strip made from the window of rows around it, through a ring
    /// of its own, point stages in place between them. Taller than every ring, the file is the
    /// ordinary run's byte for byte, and no stage saw the whole picture.
    @Test func areaStagesStreamThroughWindowsToTheSameBytes() throws {
        let directory = try TemporaryDirectory()
        let picture = try Synthetic.image(6000, 1500) { x, y in Color(red: UInt8((x * 7 + y * 3) % 256), green: UInt8((x * y) % 251), blue: UInt8((y * 5) % 256)) }
        let input = try directory.write(picture.encoded(as: .jpeg, options: SaveOptions(quality: 90)), to: "tall.jpg")
        let near = StripBox(radius: 2), invert = StripInvert(), far = StripBox(radius: 45)
        let pipeline = Pipeline(transforms: [near, invert, far], sink: Save(options: SaveOptions(quality: 90)))
        #expect(Pipeline.ringRows(rowStride: 18000, height: 1500, holding: try StripChain.decodeRingNeeds(StripChain.levels(of: pipeline.transforms, size: Size(6000, 1500))!, size: Size(6000, 1500),
                                                                                                 rowStride: 18000, decodeStrip: 32)) > 0)
        let streamed = try Self.output(of: pipeline, input: input, streamed: true, in: directory)
        let windows = near.heights.withLock { $0 } + far.heights.withLock { $0 }
        #expect(windows.count > 4 && windows.allSatisfy { $0 < 1500 }, "\(windows)")
        #expect(near.heights.withLock { $0.reduce(0, +) } < 1500 * 2, "windows overlap by their radius only")
        #expect(streamed == (try Self.output(of: pipeline, input: input, streamed: false, in: directory)))
    }

    /// An encode whose rows stop halfway fails with libjpeg's word, however much it had written
    /// (a stopped run, a failed decode): its output buffer had grown, and the old error path
    /// freed libjpeg's first one again.
    @Test func aJPEGEncodeWhoseRowsStopHalfwayFails() throws {
        var random = SeededGenerator(seed: 8)
        let picture = try Synthetic.image(1500, 600) { _, _ in
            Color(red: .random(in: 0...255, using: &random), green: .random(in: 0...255, using: &random), blue: .random(in: 0...255, using: &random))
        }
        let error = try #require(throws: ImageError.self) {
            try JPEGEncoder.encode(picture.pixels, size: picture.size, rowStride: picture.rowStride, quality: 95, chroma: .c444, gray: false,
                                   progressive: false, optimizeCoding: false, metadata: OutputMetadata()) { needed in min(needed, 400) }
        }
        #expect(error.reason.hasSuffix("row 400 of the picture never came"), "\(error)")
        // And whole, the same call writes a file.
        let whole = try JPEGEncoder.encode(picture.pixels, size: picture.size, rowStride: picture.rowStride, quality: 95, chroma: .c444,
                                           gray: false, progressive: false, optimizeCoding: false, metadata: OutputMetadata()) { $0 }
        #expect(try Image.decode(whole).size == Size(1500, 600))
    }

    @Test func aDecodeFailingHalfwayFailsTheRunNamingTheInputAndWritesNothing() throws {
        let directory = try TemporaryDirectory()
        let whole = try Data(contentsOf: URL(fileURLWithPath: Self.photo(in: directory)))
        let cut = try directory.write(Array(whole.prefix(whole.count * 6 / 10)), to: "cut.jpg")
        let output = directory.file("out.jpg")
        let pipeline = Pipeline(transforms: [StripInvert()])
        let error = try #require(throws: (any Error).self) { try pipeline.run(in: RunContext(input: cut, output: output)) }
        #expect("\(error)".contains("cut.jpg"), "\(error)")
        #expect(!FileManager.default.fileExists(atPath: output))
        // With fail=false the decoder goes on to the end (gray), and the run streams all of it.
        let stage = StripInvert()
        try Pipeline(source: Load(failOn: .none), transforms: [stage]).run(in: RunContext(input: cut, output: output))
        #expect(try Image.load(path: output).size == Size(240, 200))
        #expect(stage.heights.withLock { $0.count } == 7)
    }

    /// Damaged files through both runs: the streamed one fails exactly when the ordinary one
    /// does, with the same message, and otherwise writes the same bytes; nothing hangs or crashes.
    @Test func damagedJPEGsEndAsInTheOrdinaryRun() throws {
        let directory = try TemporaryDirectory()
        let whole = Array(try Data(contentsOf: URL(fileURLWithPath: Self.photo(in: directory))))
        var generator = SeededGenerator(seed: 11)
        var failures = 0
        for round in 0..<40 {
            let bytes = DamagedInput.bytes(whole, round: round, cutEvery: 4, flipsUpTo: 5, keep: 700, using: &generator)
            let input = try directory.write(bytes, to: "damaged.jpg")
            for failOn in [FailOn.error, .none] {
                let pipeline = Pipeline(source: Load(failOn: failOn), transforms: [StripInvert()])
                let streamed = Result { try Self.output(of: pipeline, input: input, streamed: true, in: directory) }
                let ordinary = Result { try Self.output(of: pipeline, input: input, streamed: false, in: directory) }
                if DamagedInput.expectSameEnding(streamed: streamed, ordinary: ordinary, "round \(round), fail=\(failOn)") { failures += 1 }
            }
        }
        #expect(failures > 5, "some of the damage is caught")
    }

    @Test func aStageFailingHalfwayStopsTheRunWithItsMessage() throws {
        let directory = try TemporaryDirectory()
        let input = try Self.photo(in: directory), output = directory.file("out.jpg")
        let pipeline = Pipeline(transforms: [StripInvert(failAfterRows: 100)])
        let error = try #require(throws: PipelineError.self) { try pipeline.run(in: RunContext(input: input, output: output)) }
        #expect(error.stage == "strip-invert" && error.message == "gave up after 100 rows", "\(error)")
        #expect(!FileManager.default.fileExists(atPath: output))
    }

    @Test func aStageBreakingItsRowPromiseIsCaught() throws {
        let directory = try TemporaryDirectory()
        let input = try Self.photo(in: directory), output = directory.file("out.jpg")
        let pipeline = Pipeline(transforms: [StripInvert(misbehave: true)])
        let error = try #require(throws: PipelineError.self) { try pipeline.run(in: RunContext(input: input, output: output)) }
        #expect(error.message.hasSuffix("though it says it works row by row (a bug in the stage)"), "\(error)")
        #expect(!FileManager.default.fileExists(atPath: output))
    }

    @Test func aDisplayP3PictureIsConvertedStripByStripAsTheOrdinaryRunConvertsIt() throws {
        let directory = try TemporaryDirectory()
        let input = try Self.photo(in: directory, metadata: ImageMetadata(iccProfile: ColorReference.displayP3()))
        let stage = StripInvert()
        let pipeline = Pipeline(transforms: [stage])
        let streamed = try Self.output(of: pipeline, input: input, streamed: true, in: directory)
        #expect(stage.heights.withLock { $0.count } == 7)
        #expect(streamed == (try Self.output(of: pipeline, input: input, streamed: false, in: directory)))
        // Kept in its profile (color=keep, keep=icc), the pixels are not converted at all: streamed too.
        let kept = Pipeline(source: Load(color: .keep), transforms: [StripInvert()], sink: Save(options: SaveOptions(keep: .icc)))
        #expect(try Self.output(of: kept, input: input, streamed: true, in: directory)
            == Self.output(of: kept, input: input, streamed: false, in: directory))
    }

    /// A save that converts colors (here from the Display P3 pixels kept on load to sRGB)
    /// converts each strip as the ordinary run converts the whole picture.
    @Test func aSaveThatConvertsColorsStreamsToTheSameBytes() throws {
        let directory = try TemporaryDirectory()
        let input = try Self.photo(in: directory, metadata: ImageMetadata(iccProfile: ColorReference.displayP3()))
        let stage = StripInvert()
        let pipeline = Pipeline(source: Load(color: .keep), transforms: [stage, StripBox(radius: 1)], sink: Save(options: SaveOptions(profile: .srgb)))
        let streamed = try Self.output(of: pipeline, input: input, streamed: true, in: directory)
        #expect(stage.heights.withLock { $0.count } == 7)
        #expect(streamed == (try Self.output(of: pipeline, input: input, streamed: false, in: directory)))
        // A tee that converts: its strips too, to the ordinary run's bytes.
        let teedStage = StripInvert()
        let teed = { (mode: String) in
            Pipeline(source: Load(color: .keep), transforms: [StripBox(radius: 1), Tee(Save(path: directory.file("\(mode)-tee.png"), options: SaveOptions(profile: .srgb))),
                                                             teedStage], sink: Save(options: SaveOptions(keep: .icc)))
        }
        _ = try Self.output(of: teed("streamed"), input: input, streamed: true, in: directory)
        // Streamed: strips of the area stage's level.
        #expect(teedStage.heights.withLock { $0.count > 1 && $0.reduce(0, +) == 200 }, "\(teedStage.heights.withLock { $0 })")
        _ = try Self.output(of: teed("ordinary"), input: input, streamed: false, in: directory)
        let teeFile = try Data(contentsOf: URL(fileURLWithPath: directory.file("streamed-tee.png")))
        let ordinaryTee = try Data(contentsOf: URL(fileURLWithPath: directory.file("ordinary-tee.png")))
        #expect(!teeFile.isEmpty && teeFile == ordinaryTee)
        // Converted indeed: not the bytes of the same run that keeps the profile.
        let kept = Pipeline(source: Load(color: .keep), transforms: [StripInvert(), StripBox(radius: 1)], sink: Save(options: SaveOptions(keep: .icc)))
        #expect(streamed != (try Self.output(of: kept, input: input, streamed: true, in: directory)))
    }

    /// An encoder that takes only a whole picture gets one gathered from the streamed rows (the
    /// decode and the stages stream): the same file as the ordinary run's.
    @Test(arguments: [(ImageFormat.webp, SaveOptions()), (.avif, SaveOptions(speed: 10)), (.gif, SaveOptions()), (.bmp, SaveOptions()),
                      (.png, SaveOptions(palette: true)), (.webp, SaveOptions(profile: .srgb))])
    func aWholePictureEncoderIsFedFromTheStreamedRows(format: ImageFormat, options: SaveOptions) throws {
        let directory = try TemporaryDirectory()
        let input = try Self.photo(in: directory, metadata: ImageMetadata(iccProfile: ColorReference.displayP3()))
        let stage = StripInvert()
        let pipeline = Pipeline(source: Load(color: .keep), transforms: [stage, StripBox(radius: 1)], sink: Save(format: format, options: options))
        let streamed = try Self.output(of: pipeline, input: input, streamed: true, in: directory, format: format)
        #expect(stage.heights.withLock { $0.count } == 7)
        #expect(streamed == (try Self.output(of: pipeline, input: input, streamed: false, in: directory, format: format)))
        #expect(try Image.decode(streamed).size == Size(240, 200))
    }

    /// EXIF orientations stream: a turning level reads the rows as stored back upright, before
    /// every stage, and the stages get strips of the upright picture.
    @Test(arguments: [3, 5, 6, 8])
    func anEXIFTurnStreamsToTheOrdinaryBytes(orientation: Int) throws {
        let directory = try TemporaryDirectory()
        let input = try Self.photo(in: directory)
        let turned = try directory.write(Synthetic.withExifOrientation(Array(Data(contentsOf: URL(fileURLWithPath: input))), orientation: UInt16(orientation)),
                                         to: "turned.jpg")
        let stage = StripInvert()
        let pipeline = Pipeline(transforms: [stage, StripBox(radius: 1)])
        let streamed = try Self.output(of: pipeline, input: turned, streamed: true, in: directory)
        let height = Dihedral(exifOrientation: orientation).size(of: Size(240, 200)).height
        #expect(stage.heights.withLock { $0.reduce(0, +) } == height && stage.heights.withLock { $0.count } > 1)
        #expect(streamed == (try Self.output(of: pipeline, input: turned, streamed: false, in: directory)))
        #expect(try Image.decode(streamed).size == Dihedral(exifOrientation: orientation).size(of: Size(240, 200)))
    }

    @Test func aCMYKPictureStreamsFromItsWholeDecodeAndOtherStagesTakeTheOrdinaryRun() throws {
        let directory = try TemporaryDirectory()
        let input = try Self.photo(in: directory)
        // libjpeg makes RGB rows of CMYK only whole: the decoded picture is the chain's source.
        let cmyk = directory.file("cmyk.jpg")
        try ColorReference.python("""
            from PIL import Image
            Image.new('CMYK', (64, 48), (10, 200, 30, 5)).save('\(cmyk)', quality=95)
            """)
        let cmykStage = StripInvert()
        let pipeline = Pipeline(transforms: [cmykStage])
        let streamed = try Self.output(of: pipeline, input: cmyk, streamed: true, in: directory)
        #expect(cmykStage.heights.withLock { $0 } == [32, 16])
        #expect(streamed == (try Self.output(of: pipeline, input: cmyk, streamed: false, in: directory)))
        // A whole stage after it streams behind the picture gathered before it: the point stage
        // before still gets strips, and the file is the ordinary run's.
        let mixed = StripInvert()
        let halved = try Self.output(of: Pipeline(transforms: [mixed, TestHalf()]), input: input, streamed: true, in: directory)
        #expect(mixed.heights.withLock { $0 } == [32, 32, 32, 32, 32, 32, 8])
        #expect(halved == (try Self.output(of: Pipeline(transforms: [StripInvert(), TestHalf()]), input: input, streamed: false, in: directory)))
    }
}
