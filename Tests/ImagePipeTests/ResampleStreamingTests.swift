import Foundation
import Testing
@testable import ImagePipe
@testable import ImagePipeCore
import TestSupport

/// `test-scale`: `region` (the whole picture when nil) resampled to `size` as every scaling
/// stage resamples (`Image.resampled`), a resample stage (`WindowedResampling`) for the streamed
/// run. It notes the height of every window it is given.
struct TestScale: Transform, DeclaredStage {
    static let declaration = StageDeclaration("test-scale", summary: "Resample a region (test stage)",
                                              start: TestScale(size: Size(1, 1), kernel: .linear), [])
    let heights = Locked<[Int]>([])
    var size: Size
    var kernel: Kernel
    var region: Region?
    var linearLight = false

    static func == (a: Self, b: Self) -> Bool {
        a.size == b.size && a.kernel == b.kernel && a.region == b.region && a.linearLight == b.linearLight
    }
    var stageClass: StageClass { .resample }
    func outputSize(for input: Size) -> Size { size }

    private func resampling(_ input: Size) throws -> WindowedResampling {
        let region = region ?? Region(x: 0, y: 0, width: Double(input.width), height: Double(input.height))
        return try WindowedResampling(sourceSize: input, region: region, to: size, kernel: kernel, linearLight: linearLight)
    }

    func inputRows(forOutput rows: Range<Int>, of input: DecodeReduction) throws -> Range<Int> {
        try resampling(input.decodedSize).sourceRows(forOutput: rows)
    }

    /// The whole picture through `Image.resampled`, apart from the windows' code, so that the
    /// tests hold the windows to it; a window through `WindowedResampling`.
    func makeRows(_ rows: Range<Int>, from input: StageInput) throws -> Image {
        let image = input.pixels
        if input.rows == 0..<input.picture.decodedSize.height, rows == 0..<size.height {
            return try image.resampled(from: region ?? Region(x: 0, y: 0, width: Double(image.width), height: Double(image.height)), to: size,
                                       kernel: kernel, linearLight: linearLight)
        }
        heights.withLock { $0.append(image.height) }
        return try resampling(input.picture.decodedSize).rows(rows, fromWindow: image, top: input.top)
    }
}

/// `test-bad-window`: a resample stage that breaks its promise: its window moves back (or,
/// with `outside`, reaches past the picture).
struct TestBadWindow: Transform, DeclaredStage {
    static let declaration = StageDeclaration("test-bad-window", summary: "A window that moves back (test stage)", start: TestBadWindow(), [])
    var outside = false

    var stageClass: StageClass { .resample }
    func outputSize(for input: Size) -> Size { input }
    func inputRows(forOutput rows: Range<Int>, of input: DecodeReduction) throws -> Range<Int> {
        outside ? rows.lowerBound..<(rows.upperBound + 1) : (rows.lowerBound > 0 ? 0 : 1)..<rows.upperBound
    }
    func makeRows(_ rows: Range<Int>, from input: StageInput) throws -> Image { input.pixels }
}

/// Drives `StripChain` as the streamed run does, from a picture in memory: a decoder that
/// writes rows into a ring as far ahead as the chain lets it go (as libjpeg does, so a row let
/// go of too early is overwritten), and an encoder that asks for one row more each time.
enum StripHarness {
    struct Run {
        /// The rows the encoder got, packed.
        let bytes: [UInt8]
        let size: Size
        let layouts: [StripChain.Layout]
        let decodeRingRows: Int
    }

    static func run(_ input: Image, through transforms: [any Transform], decodeStrip: Int, stripRows: Int?) throws -> Run {
        let levels = try #require(StripChain.levels(of: transforms, size: input.size))
        // Rows a few bytes longer than the pixels: the chain must go by the stride.
        let size = input.size, stride = size.width * 3 + 5
        let needs = try StripChain.decodeRingNeeds(levels, size: size, rowStride: stride, decodeStrip: decodeStrip, stripRows: stripRows)
        let strips = max(2, (needs + decodeStrip - 1) / decodeStrip)
        let ring = strips * decodeStrip >= size.height ? 0 : strips * decodeStrip
        let capacity = (ring > 0 ? ring : size.height) * stride
        let pixels = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
        pixels.initialize(repeating: 0xA5, count: capacity)
        defer { pixels.deallocate() }
        var written = 0, released = 0, processed = 0
        func slot(_ y: Int) -> UnsafeMutablePointer<UInt8> { pixels + (ring > 0 ? y % ring : y) * stride }
        func decodeAhead() {
            while written < size.height, ring == 0 || written - ring < released {
                slot(written).update(from: input.rowStart(written), count: size.width * 3)
                written += 1
            }
        }
        let makeDecoded = { (wanted: Int) throws -> Int in
            while processed < min(wanted, size.height) {
                let end = min(size.height, processed + decodeStrip)
                decodeAhead()
                guard written >= end else { throw StageError("the decoder would wait for room for ever at row \(written)") }
                try StripChain.applyPoints(levels[0].points, toRows: slot(processed), size: Size(size.width, end - processed),
                                           rowStride: stride, at: StripPosition(top: processed, pictureSize: size)) { _, body in try body() }
                processed = end
            }
            return processed
        }
        let release = { (rows: Int) in
            if rows > processed { Issue.record("rows before \(rows) let go of, only \(processed) made") }
            released = max(released, rows)
            decodeAhead() // at once, as a decoder waiting for room goes on
        }
        let chain = try StripChain(levels: levels, size: size, rowStride: stride, decodeRing: pixels, decodeRingRows: ring,
                                   decodeStrip: decodeStrip, stripRows: stripRows, makeDecoded: makeDecoded, releaseDecoded: release,
                                   located: { _, body in try body() })
        let output = chain.output
        var bytes: [UInt8] = [], made = 0
        bytes.reserveCapacity(output.size.pixelCount * 3)
        for y in 0..<output.size.height {
            if made <= y {
                made = try chain.rows(upTo: y + 1)
                guard made > y else { throw StageError("row \(y) never came") }
            }
            let row = output.pixels + (output.ringRows > 0 ? y % output.ringRows : y) * output.rowStride
            bytes += UnsafeBufferPointer(start: row, count: output.size.width * 3)
        }
        #expect(processed == size.height, "the decode is read to its end")
        return Run(bytes: bytes, size: output.size, layouts: chain.layouts, decodeRingRows: ring)
    }

    /// The picture's rows, packed.
    static func bytes(_ image: Image) -> [UInt8] {
        (0..<image.height).flatMap { Array(UnsafeBufferPointer(start: image.rowStart($0), count: image.width * 3)) }
    }

    /// `transforms` on the whole picture, one after another, as the ordinary run applies them.
    static func whole(_ input: Image, through transforms: [any Transform]) throws -> Image {
        try transforms.reduce(input) { image, stage in try stage.apply(to: image) }
    }
}

@Suite(.timeLimit(.minutes(10))) struct ResampleStreamingTests {
    /// Detail in every row and column, so that a row from the wrong place shows.
    static func picture(_ width: Int, _ height: Int) throws -> Image {
        var random = SeededGenerator(seed: UInt64(width * 7919 + height))
        return try Synthetic.image(width, height) { x, y in
            Color(red: UInt8((x * 7 + y * 13) % 256), green: UInt8((x * y + y) % 251),
                  blue: y % 5 == 0 ? .random(in: 0...255, using: &random) : UInt8((y * 29 + x) % 256))
        }
    }

    /// Geometries of one axis each: enlarging, reducing 2×, ~7.3×, ~37× (a box pre-shrink of 4
    /// before the kernel: `gap` is 8), and a window placed between pixels.
    static let geometries: [(name: String, input: Size, region: Region?, output: Size)] = [
        ("enlarge 2.3x", Size(41, 53), nil, Size(94, 122)),
        ("reduce 2x", Size(90, 203), nil, Size(45, 101)),
        ("reduce 7.3x", Size(73, 401), nil, Size(10, 55)),
        ("reduce 37x with a box of 4", Size(60, 1111), nil, Size(7, 30)),
        ("a window between pixels", Size(80, 150), Region(x: 3.25, y: 17.6, width: 51.5, height: 97.3), Size(37, 71)),
    ]

    /// Each band of output rows made from a window of exactly the source rows it says it needs
    /// is the whole resampling's rows, byte for byte, whatever the band.
    @Test(arguments: [Kernel.linear, .lanczos3, .nearest, .box, .mitchell])
    func windowedResamplingMakesTheWholePicturesRows(kernel: Kernel) throws {
        for geometry in Self.geometries {
            let input = try Self.picture(geometry.input.width, geometry.input.height)
            let region = geometry.region ?? Region(x: 0, y: 0, width: Double(input.width), height: Double(input.height))
            for linearLight in [false, true] where linearLight == false || kernel == .lanczos3 {
                let whole = try input.resampled(from: region, to: geometry.output, kernel: kernel, linearLight: linearLight)
                let windowed = try WindowedResampling(sourceSize: input.size, region: region, to: geometry.output, kernel: kernel,
                                                      linearLight: linearLight)
                for band in [1, 7, 32] {
                    var top = 0
                    for first in stride(from: 0, to: geometry.output.height, by: band) {
                        let rows = first..<min(geometry.output.height, first + band)
                        let needed = windowed.sourceRows(forOutput: rows)
                        #expect(needed.lowerBound >= top && needed.upperBound <= input.height && !needed.isEmpty, "\(geometry.name): \(needed)")
                        top = needed.lowerBound
                        // Exactly those rows, between two rows of noise: a row read from outside shows.
                        let window = try Image.make(size: Size(input.width, needed.count + 2), hasAlpha: false) { writer in
                            for y in 0..<needed.count + 2 {
                                let row = writer.row(y)
                                guard y > 0, y <= needed.count else {
                                    for i in 0..<input.width * 3 { row[i] = UInt8(truncatingIfNeeded: i &* 151 &+ y &* 89) }
                                    continue
                                }
                                row.baseAddress!.update(from: input.rowStart(needed.lowerBound + y - 1), count: input.width * 3)
                            }
                        }
                        let made = try windowed.rows(rows, fromWindow: window, top: needed.lowerBound - 1)
                        let expected = try whole.cropped(to: Rect(x: 0, y: rows.lowerBound, width: whole.width, height: rows.count))
                        #expect(StripHarness.bytes(made) == StripHarness.bytes(expected), "\(geometry.name), \(kernel), band \(band), rows \(rows)")
                    }
                }
            }
        }
    }

    /// The window follows the kernel's reach and the reduction: one output row of a 2× linear
    /// reduction reads 4 rows, of a ~37× reduction some 37 × 2 (the box's blocks under the
    /// kernel's reach), never the picture.
    @Test func aWindowIsTheRowsTheKernelReaches() throws {
        let half = try WindowedResampling(sourceSize: Size(90, 200), region: Region(x: 0, y: 0, width: 90, height: 200),
                                          to: Size(45, 100), kernel: .linear, linearLight: false)
        #expect(half.sourceRows(forOutput: 50..<51) == 99..<103)
        let far = try WindowedResampling(sourceSize: Size(60, 1111), region: Region(x: 0, y: 0, width: 60, height: 1111),
                                         to: Size(7, 30), kernel: .linear, linearLight: false)
        let rows = far.sourceRows(forOutput: 15..<16)
        #expect(rows.count >= 37 && rows.count <= 37 * 2 + 8 && rows.contains(15 * 1111 / 30), "\(rows)")
        // A scale of 1 on whole pixels is a crop: the rows shifted, the pixels copied.
        let crop = try WindowedResampling(sourceSize: Size(60, 100), region: Region(x: 5, y: 9, width: 20, height: 30),
                                          to: Size(20, 30), kernel: .lanczos3, linearLight: false)
        #expect(crop.sourceRows(forOutput: 4..<11) == 13..<20)
    }

    /// The chain through resample levels, area and point stages between and after them, every
    /// level's strip 1, 7 or 32 rows (decode strips too), the ring far smaller than the picture:
    /// the rows are the whole picture's byte for byte.
    @Test(arguments: [1, 7, 32])
    func resampleLevelsStreamToTheWholePicturesBytes(strip: Int) throws {
        for kernel in [Kernel.linear, .lanczos3] {
            for geometry in Self.geometries {
                let input = try Self.picture(geometry.input.width, geometry.input.height)
                let chains: [[any Transform]] = [
                    [TestScale(size: geometry.output, kernel: kernel, region: geometry.region), StripBox(radius: 2), StripInvert()],
                    [StripInvert(), StripBox(radius: 1), TestScale(size: geometry.output, kernel: kernel, region: geometry.region), StripInvert()],
                    // Two resample levels in a row, the second a plain crop (scale 1 on whole pixels).
                    [TestScale(size: geometry.output, kernel: kernel, region: geometry.region),
                     TestScale(size: Size(geometry.output.width - 2, geometry.output.height - 3), kernel: kernel,
                               region: Region(x: 1, y: 2, width: Double(geometry.output.width - 2), height: Double(geometry.output.height - 3))),
                     StripBox(radius: 3)],
                ]
                for transforms in chains {
                    let streamed = try StripHarness.run(input, through: transforms, decodeStrip: strip, stripRows: strip)
                    let whole = try StripHarness.whole(input, through: transforms)
                    #expect(streamed.size == whole.size)
                    #expect(streamed.bytes == StripHarness.bytes(whole), "\(geometry.name), \(kernel), strips of \(strip): \(transforms.map(\.text))")
                }
            }
        }
    }

    /// Memory follows the strip and the window: a tall picture reduced 10× reads windows some
    /// 10 strips tall, and no ring or window holds the picture.
    @Test func ringsAndWindowsStayFarFromThePicture() throws {
        let input = try Self.picture(50, 6000)
        let scale = TestScale(size: Size(50, 600), kernel: .lanczos3)
        let run = try StripHarness.run(input, through: [scale, StripBox(radius: 2)], decodeStrip: 32, stripRows: nil)
        #expect(run.bytes == StripHarness.bytes(try StripHarness.whole(input, through: [scale, StripBox(radius: 2)])))
        let resample = run.layouts[1]
        #expect(resample.strip == StripChain.resampleStripRows(input: 6000, output: 600, inputRowBytes: 50 * 3) && resample.strip <= 128)
        #expect(resample.window > resample.strip * 10 && resample.window < resample.strip * 10 + 80, "\(resample)")
        #expect(run.decodeRingRows > 0 && run.decodeRingRows < 6000 / 4, "\(run.decodeRingRows) rows")
        #expect(scale.heights.withLock { $0.allSatisfy { $0 <= resample.window } && $0.count == (600 + resample.strip - 1) / resample.strip })
        // A crop far down: the window starts at its top, the rows above it let go of as decoded.
        let crop = TestScale(size: Size(50, 200), kernel: .linear, region: Region(x: 0, y: 5000, width: 50, height: 200))
        let cropped = try StripHarness.run(input, through: [crop], decodeStrip: 32, stripRows: nil)
        #expect(cropped.layouts[1].window == cropped.layouts[1].strip && cropped.decodeRingRows < 400, "\(cropped.layouts)")
        #expect(cropped.bytes == StripHarness.bytes(try crop.apply(to: input)))
    }

    /// Through the streamed run itself: a JPEG taller than its rings, reduced and enlarged
    /// between area and point stages, is the ordinary run's file byte for byte, and the resample
    /// stage saw windows, never the picture.
    @Test func theStreamedRunWithResampleStagesWritesTheOrdinaryRunsBytes() throws {
        let directory = try TemporaryDirectory()
        let input = try directory.write(Self.picture(6000, 1500).encoded(as: .jpeg, options: SaveOptions(quality: 90)), to: "tall.jpg")
        #expect(Pipeline.ringRows(rowStride: 18000, height: 1500) < 1500)
        for (scale, after) in [(TestScale(size: Size(2000, 500), kernel: .lanczos3), StripBox(radius: 4)),
                               (TestScale(size: Size(1650, 1300), kernel: .linear, region: Region(x: 10, y: 20.5, width: 1400, height: 1000)), StripBox(radius: 1))] {
            let pipeline = Pipeline(transforms: [StripInvert(), scale, after, StripInvert()], sink: Save(options: SaveOptions(quality: 90)))
            #expect(pipeline.streams(in: RunContext(input: input, output: directory.file("x.jpg")),
                                     prepared: try pipeline.prepare(in: RunContext(input: input, output: directory.file("x.jpg")))))
            let streamed = try StreamedRunTests.output(of: pipeline, input: input, streamed: true, in: directory)
            let windows = scale.heights.withLock { $0 }
            #expect(windows.count >= 4 && windows.allSatisfy { $0 < 600 }, "\(windows)")
            #expect(streamed == (try StreamedRunTests.output(of: pipeline, input: input, streamed: false, in: directory)))
            #expect(try Image.decode(streamed).size == scale.size)
        }
    }

    /// A stage whose window moves back or leaves the picture is caught before any row is made.
    @Test func aWindowThatBreaksThePromiseIsCaught() throws {
        let input = try Self.picture(20, 100)
        for stage in [TestBadWindow(), TestBadWindow(outside: true)] {
            let error = try #require(throws: StageError.self) {
                try StripHarness.run(input, through: [stage], decodeStrip: 7, stripRows: 7)
            }
            #expect(error.message.hasPrefix("test-bad-window says output rows") && error.message.hasSuffix("(a bug in the stage)"), "\(error)")
        }
        let directory = try TemporaryDirectory()
        let file = try directory.write(input.encoded(as: .jpeg), to: "in.jpg")
        #expect(throws: (any Error).self) { try Pipeline(transforms: [TestBadWindow()]).run(in: RunContext(input: file, output: directory.file("out.jpg"))) }
        #expect(!FileManager.default.fileExists(atPath: directory.file("out.jpg")))
    }
}
