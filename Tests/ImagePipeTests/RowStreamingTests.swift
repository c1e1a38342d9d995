import Foundation
import Testing
@testable import ImagePipe
@testable import ImagePipeCore
import TestSupport

/// The streamed run for every decoder that hands out rows (`RowSource`: JPEG, PNG, TIFF, WebP) into every
/// encoder that takes them (`RowEncoding`: JPEG, TIFF, PNG): the same bytes as the ordinary
/// run, in strips, and only where the codec registry says.
@Suite(.timeLimit(.minutes(10))) struct RowStreamingTests {
    /// Inputs, each `size` with detail in every row: a JPEG, TIFFs in strips, in tiles and gray,
    /// PNGs in color and gray, and WebPs lossy and lossless.
    static func inputs(_ size: Size, in directory: TemporaryDirectory) throws -> [String] {
        let picture = try Synthetic.image(size.width, size.height) { x, y in
            Color(red: UInt8((x * 7 + y * 3) % 256), green: UInt8((x * y) % 251), blue: UInt8((y * 5 + x / 3) % 256))
        }
        return [
            try directory.write(picture.encoded(as: .jpeg, options: SaveOptions(quality: 95)), to: "in.jpg"),
            try directory.write(picture.encoded(as: .tiff), to: "strips.tif"),
            try directory.write(picture.encoded(as: .tiff, options: SaveOptions(tile: 64)), to: "tiles.tif"),
            try directory.write(Self.grayOnly(picture).encoded(as: .tiff, options: SaveOptions(tiffCompression: .lzw)), to: "gray.tif"),
            try directory.write(picture.encoded(as: .png), to: "in.png"),
            try directory.write(Self.grayOnly(picture).encoded(as: .png), to: "gray.png"),
            try directory.write(picture.encoded(as: .webp, options: SaveOptions(quality: 90)), to: "lossy.webp"),
            try directory.write(picture.encoded(as: .webp, options: SaveOptions(lossless: true)), to: "lossless.webp"),
        ]
    }

    /// The picture with R = G = B (its red), marked gray: written as one-sample gray.
    static func grayOnly(_ picture: Image) throws -> Image {
        var metadata = picture.metadata
        metadata.grayOnly = true
        return try Image.make(size: picture.size, hasAlpha: false) { writer in
            for y in 0..<picture.height {
                let from = picture.row(y), to = writer.row(y)
                for x in 0..<picture.width { to[x * 3] = from[x * 3]; to[x * 3 + 1] = from[x * 3]; to[x * 3 + 2] = from[x * 3] }
            }
        }.withMetadata(metadata)
    }

    /// The outputs written, each as a file name and the options that write it.
    static let outputs: [(String, SaveOptions)] = [
        ("out.jpg", SaveOptions(quality: 90)), ("out.png", SaveOptions()), ("out.tif", SaveOptions()),
        ("tiled.tif", SaveOptions(tiffCompression: .lzw, tile: 32)),
    ]

    /// The file `pipeline` writes to `name`, streamed (no observer) or the ordinary way (an
    /// observer of whole pictures turns streaming off).
    static func output(of pipeline: Pipeline, input: String, name: String, streamed: Bool, in directory: TemporaryDirectory) throws -> [UInt8] {
        let path = directory.file((streamed ? "streamed-" : "ordinary-") + name)
        var context = RunContext(input: input, output: path)
        context.wholePictures = !streamed
        #expect(pipeline.streams(in: context, prepared: try pipeline.prepare(in: context)) == streamed, "\(input) → \(name)")
        try pipeline.run(in: context)
        return Array(try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    /// Point and area stages, from each input into each output: the same bytes both ways, the
    /// point stage given strips of 32 rows when streamed. 203 rows: the last strip is short.
    @Test(arguments: [Size(240, 203), Size(9000, 700)])
    func everyInputIntoEveryOutputStreamsToTheOrdinaryBytes(size: Size) throws {
        let directory = try TemporaryDirectory()
        if size.height > 600 {
            // Taller than the ring: rows are rewritten once the stages have let go of them.
            let ring = Pipeline.ringRows(rowStride: size.width * 3, height: size.height, holding: 64)
            #expect(ring > 0 && ring < size.height, "\(ring) rows")
        }
        for input in try Self.inputs(size, in: directory) {
            for (name, options) in Self.outputs {
                let point = StripInvert()
                let pipeline = Pipeline(transforms: [point, StripBox(radius: 2), StripInvert()], sink: Save(options: options))
                let streamed = try Self.output(of: pipeline, input: input, name: name, streamed: true, in: directory)
                let strips = point.heights.withLock { $0 }
                #expect(strips.count == (size.height + 31) / 32 && strips.dropLast().allSatisfy { $0 == 32 }, "\(input) → \(name): \(strips.prefix(4))")
                let ordinary = try Self.output(of: pipeline, input: input, name: name, streamed: false, in: directory)
                #expect(streamed == ordinary, "\(input) → \(name)")
            }
        }
    }

    /// The streamed and the ordinary output hold the stages' work: the inverted input, decoded
    /// again (TIFF and PNG are lossless).
    @Test func theStreamedFileHoldsTheStagesWork() throws {
        let directory = try TemporaryDirectory()
        let input = try Self.inputs(Size(100, 70), in: directory)[1]
        for name in ["out.png", "out.tif"] {
            let output = try Self.output(of: Pipeline(transforms: [StripInvert()], sink: Save()), input: input, name: name, streamed: true,
                                         in: directory)
            let source = try Image.load(path: input), result = try Image.decode(output)
            for (x, y) in [(0, 0), (99, 69), (37, 41)] {
                let a = source.pixel(x: x, y: y), b = result.pixel(x: x, y: y)
                #expect(b == Color(red: 255 - a.red, green: 255 - a.green, blue: 255 - a.blue), "\(name) at \(x),\(y)")
            }
        }
    }

    /// A run streams from any input: as it is decoded when its codec hands out rows in order
    /// (`CodecCapabilities.rowsInOrder`), else from its whole decode (`decodedWhole`); and into any output:
    /// one that does not take rows (`CodecCapabilities.writesRows`; a PNG palette needs the whole picture)
    /// is given them gathered.
    @Test func aRunStreamsWhereTheRegistrySays() throws {
        let directory = try TemporaryDirectory()
        let picture = try Synthetic.gradient(64, 48)
        let sources: [ImageFormat] = [.jpeg, .png, .tiff, .webp, .gif, .bmp]
        let targets: [(ImageFormat, SaveOptions)] = [(.jpeg, SaveOptions()), (.png, SaveOptions()), (.tiff, SaveOptions()), (.webp, SaveOptions()),
                                                     (.gif, SaveOptions()), (.bmp, SaveOptions()), (.png, SaveOptions(palette: true))]
        for source in sources {
            let input = try directory.write(picture.encoded(as: source), to: "in.\(source.rawValue)")
            for (target, options) in targets {
                let pipeline = Pipeline(transforms: [StripInvert()], sink: Save(options: options))
                let context = RunContext(input: input, output: directory.file("out.\(target.rawValue)"))
                let rowsInOrder = Codecs.of(source).capabilities.rowsInOrder
                #expect(pipeline.streams(in: context, prepared: try pipeline.prepare(in: context)), "\(source) → \(target)")
                let gathers = !Codecs.of(target).capabilities.writesRows || options.writesPalette
                let memory = pipeline.streamedMemory(in: context, prepared: try pipeline.prepare(in: context))
                #expect(memory?.gathersOutput == gathers, "\(source) → \(target)")
                #expect(memory?.decodedWhole == !rowsInOrder, "\(source) → \(target)")
            }
        }
    }

    /// A TIFF whose strips are damaged past the first rows fails as the ordinary run does (the
    /// decoder's error, naming the file), leaves no output, and the decoder waiting for room in
    /// the ring is let go.
    @Test func aDamagedTIFFFailsAndWritesNothing() throws {
        let directory = try TemporaryDirectory()
        let input = try Self.inputs(Size(9000, 700), in: directory)[1]
        var bytes = Array(try Data(contentsOf: URL(fileURLWithPath: input)))
        // The strips lie between the 8-byte header and the directory, which libtiff writes last.
        let start = bytes.count * 6 / 10
        for i in start..<(start + 4096) { bytes[i] = UInt8(truncatingIfNeeded: i &* 131) }
        let damaged = try directory.write(bytes, to: "damaged.tif")
        for name in ["out.png", "out.tif", "out.jpg"] {
            try DamagedInput.expectStreamedFailure(of: Pipeline(transforms: [StripInvert()], sink: Save()), input: damaged,
                                                   output: directory.file(name), mentioning: ["damaged.tif", "strip"])
        }
    }

    /// A PNG or WebP cut in its image data fails as the ordinary run does, naming the file and
    /// the rows it held, and leaves no output; with `load fail=none` the rows it holds are
    /// written, and the rest are black.
    @Test(arguments: [(4, "png"), (6, "webp"), (7, "webp")])
    func aCutFileFailsAndWritesNothing(input index: Int, suffix: String) throws {
        let directory = try TemporaryDirectory()
        let input = try Self.inputs(Size(9000, 700), in: directory)[index]
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: input)))
        let cut = try directory.write(Array(bytes.prefix(bytes.count * 6 / 10)), to: "cut.\(suffix)")
        for name in ["out.png", "out.tif", "out.jpg"] {
            try DamagedInput.expectStreamedFailure(of: Pipeline(transforms: [StripInvert()], sink: Save()), input: cut,
                                                   output: directory.file(name), mentioning: ["cut.\(suffix)", "of its 700 rows"])
        }
        let taken = Pipeline(source: Load(failOn: .none), transforms: [StripInvert()], sink: Save())
        let context = RunContext(input: cut, output: directory.file("taken.png"))
        #expect(taken.streams(in: context, prepared: try taken.prepare(in: context)))
        try taken.run(in: context)
        let result = try Image.load(path: directory.file("taken.png")), source = try Image.load(path: input)
        let top = source.pixel(x: 17, y: 3)
        #expect(result.pixel(x: 17, y: 3) == Color(red: 255 - top.red, green: 255 - top.green, blue: 255 - top.blue))
        #expect(result.pixel(x: 17, y: 699) == Color(red: 255, green: 255, blue: 255), "a missing row, black, inverted")
    }

    /// Damaged PNGs and WebPs through both runs: the streamed one fails exactly when the ordinary
    /// one does, with the same message, and otherwise writes the same bytes, at every `fail=` level.
    @Test(arguments: [(4, "png"), (6, "webp"), (7, "webp")])
    func damagedFilesEndAsInTheOrdinaryRun(input index: Int, suffix: String) throws {
        let directory = try TemporaryDirectory()
        let whole = Array(try Data(contentsOf: URL(fileURLWithPath: Self.inputs(Size(240, 203), in: directory)[index])))
        var generator = SeededGenerator(seed: 5)
        var failures = 0
        for round in 0..<24 {
            let bytes = DamagedInput.bytes(whole, round: round, cutEvery: 3, flipsUpTo: 4, keep: 100, using: &generator)
            let input = try directory.write(bytes, to: "damaged.\(suffix)")
            for failOn in FailOn.allCases {
                let pipeline = Pipeline(source: Load(failOn: failOn), transforms: [StripInvert()], sink: Save())
                let streamed = Result { try Self.output(of: pipeline, input: input, name: "out.png", streamed: true, in: directory) }
                let ordinary = Result { try Self.output(of: pipeline, input: input, name: "out.png", streamed: false, in: directory) }
                if DamagedInput.expectSameEnding(streamed: streamed, ordinary: ordinary, "\(suffix) round \(round), fail=\(failOn)") { failures += 1 }
            }
        }
        #expect(failures > 20, "the damage is caught")
    }

    /// A stage that fails halfway through a streamed TIFF stops the decoder and writes nothing.
    @Test func aStageFailingMidwayStopsTheTIFFDecoder() throws {
        let directory = try TemporaryDirectory()
        let input = try Self.inputs(Size(9000, 700), in: directory)[2]
        let output = directory.file("out.tif")
        let pipeline = Pipeline(transforms: [StripInvert(failAfterRows: 300)], sink: Save())
        let error = try #require(throws: (any Error).self) { try pipeline.run(in: RunContext(input: input, output: output)) }
        #expect("\(error)".contains("gave up after 300 rows"), "\(error)")
        #expect(!FileManager.default.fileExists(atPath: output))
    }
}
