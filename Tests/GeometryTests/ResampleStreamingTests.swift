import Foundation
import Testing
@testable import ImagePipe
@testable import ImagePipeCore
import Geometry
import TestSupport

/// A vertical box mean over `radius` rows each side (edges clamped): an area stage to chain after
/// crop and resize.
private struct RowMean: Transform, DeclaredStage {
    static let declaration = StageDeclaration("row-mean", summary: "A vertical box mean (test stage)", start: RowMean(), [])
    var radius = 2

    var stageClass: StageClass { .area(radius: radius) }
    func outputSize(for input: Size) -> Size { input }
    func makeRows(_ rows: Range<Int>, from input: StageInput) throws -> Image {
        let image = input.pixels, local = input.local(rows)
        return try Image.make(size: Size(image.width, rows.count), hasAlpha: false) { writer in
            for y in local {
                let target = writer.row(y - local.lowerBound)
                for i in 0..<image.width * 3 {
                    var sum = 0
                    for k in -radius...radius { sum += Int(image.row(min(max(y + k, 0), image.height - 1))[i]) }
                    target[i] = UInt8(sum / (2 * radius + 1))
                }
            }
        }
    }
}

/// Inverts: a point stage.
private struct Negative: Transform, DeclaredStage {
    static let declaration = StageDeclaration("negative", summary: "Invert (test stage)", start: Negative(), [])
    var stageClass: StageClass { .point }
    func outputSize(for input: Size) -> Size { input }
    func makeRows(_ rows: Range<Int>, from input: StageInput) throws -> Image { try input.pixels.mapChannels((0...255).map { UInt8(255 - $0) }) }
}

/// `crop` and `resize` as resample stages: streamed strip by strip through `StripChain` (a
/// decoder that writes as far ahead as the chain lets it, an encoder asking row after row),
/// their rows are the whole picture's byte for byte.
@Suite(.timeLimit(.minutes(10))) struct ResampleStreamingTests {
    /// The rows `StripChain` hands the encoder from `input` through `transforms`, every strip
    /// `strip` rows (decode strips too), the decode ring as small as the chain allows; and the
    /// levels' layouts.
    static func streamed(_ input: Image, through transforms: [any Transform], strip: Int?) throws -> (bytes: [UInt8], size: Size, layouts: [StripChain.Layout]) {
        let levels = try #require(StripChain.levels(of: transforms, size: input.size))
        let decodeStrip = strip ?? Pipeline.streamedStripRows
        let size = input.size, stride = size.width * 3 + 3
        let needs = try StripChain.decodeRingNeeds(levels, size: size, rowStride: stride, decodeStrip: decodeStrip, stripRows: strip)
        let strips = max(2, (needs + decodeStrip - 1) / decodeStrip)
        let ring = strips * decodeStrip >= size.height ? 0 : strips * decodeStrip
        let capacity = (ring > 0 ? ring : size.height) * stride
        let pixels = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
        pixels.initialize(repeating: 0x5A, count: capacity)
        defer { pixels.deallocate() }
        var written = 0, released = 0, processed = 0
        func slot(_ y: Int) -> UnsafeMutablePointer<UInt8> { pixels + (ring > 0 ? y % ring : y) * stride }
        func decodeAhead() {
            while written < size.height, ring == 0 || written - ring < released {
                slot(written).update(from: input.row(written).baseAddress!, count: size.width * 3)
                written += 1
            }
        }
        let chain = try StripChain(
            levels: levels, size: size, rowStride: stride, decodeRing: pixels, decodeRingRows: ring, decodeStrip: decodeStrip, stripRows: strip,
            makeDecoded: { wanted in
                while processed < min(wanted, size.height) {
                    let end = min(size.height, processed + decodeStrip)
                    decodeAhead()
                    guard written >= end else { throw StageError("the decoder would wait for room for ever at row \(written)") }
                    try StripChain.applyPoints(levels[0].points, toRows: slot(processed), size: Size(size.width, end - processed),
                                               rowStride: stride, at: StripPosition(top: processed, pictureSize: size)) { _, body in try body() }
                    processed = end
                }
                return processed
            },
            releaseDecoded: { rows in
                if rows > processed { Issue.record("rows before \(rows) let go of, only \(processed) made") }
                released = max(released, rows)
                decodeAhead()
            },
            located: { _, body in try body() })
        let output = chain.output
        var bytes: [UInt8] = [], made = 0
        for y in 0..<output.size.height {
            if made <= y {
                made = try chain.rows(upTo: y + 1)
                guard made > y else { throw StageError("row \(y) never came") }
            }
            bytes += UnsafeBufferPointer(start: output.pixels + (output.ringRows > 0 ? y % output.ringRows : y) * output.rowStride,
                                         count: output.size.width * 3)
        }
        #expect(processed == size.height, "the decode is read to its end")
        return (bytes, output.size, chain.layouts)
    }

    static func bytes(_ image: Image) -> [UInt8] { (0..<image.height).flatMap { Array(image.row($0).prefix(image.width * 3)) } }

    static func picture(_ width: Int, _ height: Int) throws -> Image {
        var random = SeededGenerator(seed: UInt64(width * 31 + height))
        return try Synthetic.image(width, height) { x, y in
            Color(red: UInt8((x * 5 + y * 11) % 256), green: UInt8((x * y + x) % 253),
                  blue: y % 3 == 0 ? .random(in: 0...255, using: &random) : UInt8((y * 17 + x * 3) % 256))
        }
    }

    /// Crops and resizes on pictures whose heights are no multiple of the strips: enlarging,
    /// reducing 2×, ~7.3×, ~37× (a box pre-shrink of 4), cover's window cut between pixels,
    /// contain's bars above and below, a scale of 1 (a plain crop).
    static let cases: [(input: Size, stage: any Transform)] = [
        (Size(61, 83), CropStage(Rect(x: 3, y: 7, width: 50, height: 70))),
        (Size(61, 83), CropStage(Rect(x: 0, y: 0, width: 61, height: 1))),
        (Size(61, 83), CropStage(Rect(x: 10, y: 82, width: 5, height: 1))),
        (Size(40, 57), ResizeStage(ResizeSize(92, 131), fit: .fill)),
        (Size(90, 203), ResizeStage(ResizeSize(45, 101), fit: .fill)),
        (Size(73, 401), ResizeStage(ResizeSize(10, 55), fit: .fill)),
        (Size(60, 1111), ResizeStage(ResizeSize(7, 30), fit: .fill)),
        (Size(90, 203), ResizeStage(ResizeSize(50, 50), position: .anchor(.unit(x: 0.3, y: 0.7)))),
        (Size(90, 203), ResizeStage(ResizeSize(60, 90), fit: .contain, background: Color(red: 200, green: 10, blue: 90))),
        (Size(90, 203), ResizeStage(ResizeSize(60, 100), position: .anchor(.unit(x: 0.5, y: 0.25)), upscale: false)),
        (Size(61, 83), ExtendStage(top: 40, right: 3, bottom: 9, left: 5, color: Color(red: 250, green: 128, blue: 3))),
        (Size(61, 83), ExtendStage(top: 0, right: 0, bottom: 70, left: 1)),
        // A translucent color gives RGBA rows, the picture's own pixels opaque: with bars, and
        // without (the canvas is RGBA whatever the picture's shape).
        (Size(90, 203), ResizeStage(ResizeSize(60, 90), fit: .contain, background: Color(red: 200, green: 10, blue: 90, alpha: 40))),
        (Size(90, 180), ResizeStage(ResizeSize(45, 90), fit: .contain, background: Color(red: 0, green: 0, blue: 0, alpha: 0))),
        (Size(61, 83), ExtendStage(top: 5, right: 2, bottom: 38, left: 0, color: Color(red: 10, green: 200, blue: 30, alpha: 90))),
    ]

    /// Each case with `kernel` (linear or lanczos3), alone and chained with an area and a point
    /// stage after it and before it, every strip 1, 7 or 32 rows: the whole picture's bytes.
    @Test(arguments: [1, 7, 32])
    func cropAndResizeStreamToTheWholePicturesBytes(strip: Int) throws {
        for kernel in [Kernel.linear, .lanczos3] {
            for (inputSize, stage) in Self.cases {
                var stage = stage
                if var resize = stage as? ResizeStage {
                    resize.kernel = kernel
                    stage = resize
                } else if kernel == .lanczos3 { continue }
                #expect(stage.stageClass == .resample)
                let input = try Self.picture(inputSize.width, inputSize.height)
                // (The test stages around it take RGB rows.)
                let chains: [[any Transform]] = stage.outputHasAlpha(inputHasAlpha: false) ? [[stage], [Negative(), RowMean(radius: 1), stage]]
                    : [[stage], [stage, RowMean(radius: 2), Negative()], [Negative(), RowMean(radius: 1), stage, Negative()]]
                for transforms in chains {
                    let streamed = try Self.streamed(input, through: transforms, strip: strip)
                    let whole = try transforms.reduce(input) { image, stage in try stage.apply(to: image) }
                    #expect(streamed.size == whole.size)
                    #expect(streamed.bytes == Self.bytes(whole), "\(transforms.map(\.text)) on \(inputSize), strips of \(strip)")
                }
            }
        }
    }

    /// A crop's window is the strip's rows shifted down: memory follows the strip.
    @Test func aCropsWindowIsItsStripShiftedDown() throws {
        let crop = CropStage(Rect(x: 3, y: 4000, width: 50, height: 300))
        #expect(try crop.inputRows(forOutput: 10..<42, of: .none(Size(60, 5000))) == 4010..<4042)
        let input = try Self.picture(60, 5000)
        let run = try Self.streamed(input, through: [crop, RowMean(radius: 2)], strip: nil)
        #expect(run.bytes == Self.bytes(try RowMean(radius: 2).apply(to: crop.apply(to: input))))
        #expect(run.layouts[1].window == run.layouts[1].strip, "\(run.layouts)")
    }

    /// What makes resize whole: a window chosen from the pixels; not a translucent canvas (its
    /// strips are RGBA) nor the scaling mode (every mode resamples with a kernel).
    @Test func resizeIsResampleUnlessItNeedsTheWholePicture() {
        #expect(ResizeStage(ResizeSize(20, 20)).stageClass == .resample)
        #expect(ResizeStage(ResizeSize(20, 20), position: .attention).stageClass == .whole)
        #expect(ResizeStage(ResizeSize(20, 20), position: .entropy).stageClass == .whole)
        let translucent = ResizeStage(ResizeSize(20, 20), fit: .contain, background: Color(red: 0, green: 0, blue: 0, alpha: 128))
        #expect(translucent.stageClass == .resample && translucent.outputHasAlpha(inputHasAlpha: false))
        StageContext(scaling: .fast).bound {
            #expect(ResizeStage(ResizeSize(20, 20)).stageClass == .resample)
        }
    }
}
