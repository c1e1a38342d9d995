import Testing
@testable import ImagePipe
@testable import ImagePipeCore
import TestSupport

/// The shared pixel helpers: row-band maps, premultiplied rows, the convolution engine, and the
/// colour spaces the tone stages use.
@Suite struct PixelsTests {
    /// A picture with every kind of pixel: random colour, random alpha (some 0, some 255).
    static func noisy(_ width: Int, _ height: Int, alpha: Bool, seed: UInt64 = 3) throws -> Image {
        var random = SeededGenerator(seed: seed)
        return try Synthetic.image(width, height, alpha: alpha) { _, _ in
            Color(red: .random(in: 0...255, using: &random), green: .random(in: 0...255, using: &random),
                  blue: .random(in: 0...255, using: &random), alpha: alpha ? [0, 255, .random(in: 0...255, using: &random)].randomElement(using: &random)! : 255)
        }
    }

    @Test func rowBandsCoverEveryRowOnce() {
        for (rows, work) in [(1, 1), (7, 10), (1000, 100_000), (33, 1_000_000)] {
            let seen = Locked([Int](repeating: 0, count: rows))
            RowBands.run(rows: rows, workPerRow: work) { band in
                for y in band { seen.withLock { $0[y] += 1 } }
            }
            #expect(seen.withLock { $0 } == [Int](repeating: 1, count: rows), "\(rows) rows")
        }
    }

    /// Column strips and rows: every pixel once, whether the cores share the strips out (many
    /// strips, much work), each band goes through every strip (one strip), or the strips go in
    /// pieces of rows (a run that can be stopped).
    @Test func rowBandsCoverEveryColumnStripOnce() {
        for (strips, work, stoppable) in [(8, 1_000_000, false), (1, 1_000_000, false), (3, 10, false), (8, 1_000_000, true)] {
            let rows = 300, width = strips * 10
            let columns = (0..<strips).map { ($0 * 10)..<(($0 + 1) * 10) }
            let seen = Locked([Int](repeating: 0, count: rows * width))
            StageContext(cancellation: stoppable ? Cancellation() : nil).bound {
                RowBands.run(rows: rows, columns: columns, workPerRow: work) { band, strip in
                    seen.withLock { for y in band { for x in strip { $0[y * width + x] += 1 } } }
                }
            }
            #expect(seen.withLock { $0 } == [Int](repeating: 1, count: rows * width), "\(strips) strips")
        }
    }

    /// A fixed band count holds whatever the size and cores: at most one band per row.
    @Test func rowBandsCanBeFixed() {
        for (rows, bands, expected) in [(10, 3, 3), (10, 1, 1), (4, 9, 4), (1000, 2, 2), (5, 0, 1)] {
            let seen = Locked([Range<Int>]())
            RowBands.run(rows: rows, workPerRow: 1, bands: bands) { band in seen.withLock { $0.append(band) } }
            let ranges = seen.withLock { $0 }.sorted { $0.lowerBound < $1.lowerBound }
            #expect(ranges.count == expected, "\(rows) rows in \(bands)")
            #expect(ranges.flatMap { Array($0) } == Array(0..<rows) && ranges.allSatisfy { !$0.isEmpty })
        }
    }

    /// In a run that can be stopped, a band goes in pieces of several times its least rows, with
    /// a look at the cancellation between them; once stopped, no piece starts.
    @Test func rowBandsGoInPiecesWhenTheRunCanBeStopped() {
        let rows = 2000, work = 1_000_000 // 16 rows of this much work make a piece; 4 × 16 is more
        let seen = Locked([Range<Int>]())
        StageContext(cancellation: Cancellation()).bound {
            RowBands.run(rows: rows, workPerRow: work, bands: 2) { band in seen.withLock { $0.append(band) } }
        }
        let pieces = seen.withLock { $0 }.sorted { $0.lowerBound < $1.lowerBound }
        #expect(pieces.flatMap { Array($0) } == Array(0..<rows))
        #expect(pieces.count == 2 * 16 && pieces.allSatisfy { $0.count <= 64 }, "\(pieces.count) pieces")
        // Stopped after the third piece: the rest are passed over.
        let stopped = Cancellation(), made = Locked(0)
        StageContext(cancellation: stopped).bound {
            RowBands.run(rows: rows, workPerRow: work, bands: 1) { _ in
                if made.withLock({ $0 += 1; return $0 }) == 3 { stopped.cancel() }
            }
        }
        #expect(made.withLock { $0 } == 3)
        #expect(throws: ImageError.self) { try StageContext(cancellation: stopped).bound { try StageContext.checkCancelled() } }
    }

    @Test func channelTablesMapColourAndKeepAlpha() throws {
        let picture = try Self.noisy(9, 5, alpha: true)
        let inverse = (0...255).map { UInt8(255 - $0) }, identity = (0...255).map { UInt8($0) }
        let out = try picture.mapChannels(red: inverse, green: identity, blue: inverse)
        for (x, y) in [(0, 0), (8, 4), (3, 2)] {
            let p = picture.pixel(x: x, y: y), q = out.pixel(x: x, y: y)
            #expect(q == Color(red: 255 - p.red, green: p.green, blue: 255 - p.blue, alpha: p.alpha))
        }
        let both = try picture.mapChannels(red: identity, green: identity, blue: identity, alpha: inverse)
        #expect(both.pixel(x: 1, y: 1).alpha == 255 - picture.pixel(x: 1, y: 1).alpha)
        let rgb = try Self.noisy(4, 3, alpha: false).mapChannels(inverse)
        #expect(!rgb.hasAlpha)
    }

    /// Large enough to run in parallel bands: every row still gets its own row's pixels.
    @Test func mapRowsHandsEachRowItsOwnPixels() throws {
        let picture = try Synthetic.gradient(1500, 900)
        let out = try picture.mapRows(hasAlpha: true) { row in
            for x in 0..<row.width {
                for c in 0..<3 { row.target[x * 4 + c] = row.source[x * 3 + c] }
                row.target[x * 4 + 3] = UInt8(row.y % 256)
            }
        }
        #expect(out.hasAlpha)
        for (x, y) in [(0, 0), (1499, 899), (700, 451), (3, 600)] {
            var expected = picture.pixel(x: x, y: y)
            expected.alpha = UInt8(y % 256)
            #expect(out.pixel(x: x, y: y) == expected)
        }
    }

    @Test func mapColorsRoundsClampsAndSurvivesNaN() throws {
        let picture = try Synthetic.image(3, 1, alpha: true) { x, _ in Color(red: 10, green: 20, blue: 30, alpha: UInt8(x * 100)) }
        let out = try picture.mapColors { rgb in SIMD3(rgb[0] + 0.5, rgb[1] * 100, .nan) }
        #expect(out.pixel(x: 2, y: 0) == Color(red: 11, green: 255, blue: 0, alpha: 200))
    }

    /// Straight → premultiplied → straight is exact for every value at every alpha that is seen.
    @Test func premultipliedRowsRoundTripExactly() throws {
        for alpha in [1, 2, 7, 128, 254, 255] {
            let picture = try Synthetic.image(256, 1, alpha: true) { x, _ in Color(red: UInt8(x), green: UInt8(255 - x), blue: 9, alpha: UInt8(alpha)) }
            let out = try picture.mapPremultipliedRows { _, pixels in
                #expect(abs(pixels[200][0] - 200 / 255 * Float(alpha) / 255) < 1e-6)
            }
            for x in 0..<256 { #expect(out.pixel(x: x, y: 0) == picture.pixel(x: x, y: 0), "alpha \(alpha), value \(x)") }
        }
    }

    @Test func gaussianKernelIsNormalisedSymmetricAndThreeSigmaWide() {
        for sigma in [0.3, 1, 2.5, 10] {
            let kernel = ConvolutionKernel.gaussian(sigma: sigma)
            #expect(abs(kernel.sum - 1) < 1e-5)
            #expect(kernel.isSymmetric)
            #expect(kernel.radius == max(1, Int((3 * sigma).rounded(.up))))
            #expect(kernel.weights[kernel.radius] == kernel.weights.max())
        }
    }

    /// Clamped edges and normalised weights: a flat picture stays exactly flat, corners too.
    @Test func flatPicturesStayFlat() throws {
        let flat = try Image.filled(Color(red: 200, green: 17, blue: 99, alpha: 140), size: Size(37, 23))
        for convolution in [Convolution.gaussian(sigma: 2), Convolution.gaussian(sigma: 40),
                            Convolution(width: 3, height: 5, weights: [Float](repeating: 1.0 / 15, count: 15))] {
            let out = try convolution.apply(to: flat)
            for (x, y) in [(0, 0), (36, 22), (18, 11)] { #expect(out.pixel(x: x, y: y) == flat.pixel(x: x, y: y)) }
        }
    }

    /// The engine against the definition in Double, on noisy pictures with every kind of alpha,
    /// at sizes that make one band and several: within one level everywhere.
    @Test(arguments: [false, true])
    func matchesTheDefinition(alpha: Bool) throws {
        let gaussian = ConvolutionKernel.gaussian(sigma: 1.5)
        let weights = gaussian.weights.map(Double.init)
        // Normalised (sum 1), as the definition's division by the result's alpha assumes; with
        // alpha, no negative weights (they push alpha out of 0…1, where it is clamped).
        let full: [Double] = (alpha ? [1, 2, 3, 0, 5, 1, 2, 2, 1, 1, 0.5, 4, 1, 1, 2] : [1, -2, 3, 0, 5, 1, 2, 2, 1, -1, 0.5, 4, 1, 1, 2])
            .map { $0 / (alpha ? 26.5 : 20.5) }
        for size in [Size(1, 1), Size(2, 9), Size(23, 17), Size(400, 300)] {
            let picture = try Self.noisy(size.width, size.height, alpha: alpha)
            let blurred = try Convolution(separable: gaussian).apply(to: picture)
            let reference = ConvolutionReference.convolve(picture, width: weights.count, height: weights.count,
                                                          weights: ConvolutionReference.outer(weights))
            #expect(ConvolutionReference.largestDifference(blurred, reference) <= 1.0, "gaussian \(size)")
            guard size.width < 100 else { continue } // the 2-D reference is slow
            let out = try Convolution(width: 5, height: 3, weights: full.map(Float.init)).apply(to: picture)
            #expect(ConvolutionReference.largestDifference(out, ConvolutionReference.convolve(picture, width: 5, height: 3, weights: full)) <= 1.0,
                    "5x3 \(size)")
        }
    }

    /// An RGB picture under a symmetric separable kernel is filtered as flat floats, not as
    /// pixels: the result must be, to the bit, the sums the pixel path makes (each level 0…1,
    /// centre tap first, then each pair of taps added before weighting, across then down, edges
    /// clamped), at widths that end mid-vector, that need several column strips, and with tiny
    /// and wide kernels.
    @Test func flatRGBFilteringMakesThePixelPathsSums() throws {
        for (width, height, sigma) in [(1, 1, 1.0), (2, 5, 0.5), (3, 4, 3.0), (5, 30, 2.0), (67, 9, 1.0), (1203, 5, 3.0), (9, 7, 20.0)] {
            let picture = try Self.noisy(width, height, alpha: false, seed: UInt64(width))
            let kernel = ConvolutionKernel.gaussian(sigma: sigma), r = kernel.radius
            let w = Array(kernel.weights[r...])
            let blurred = try Convolution(separable: kernel).apply(to: picture)
            var differing = 0
            for channel in 0..<3 {
                func value(_ color: Color) -> UInt8 { [color.red, color.green, color.blue][channel] }
                func level(_ x: Int, _ y: Int) -> Float {
                    Float(value(picture.pixel(x: min(max(x, 0), width - 1), y: min(max(y, 0), height - 1)))) / 255
                }
                func across(_ x: Int, _ y: Int) -> Float {
                    var sum = level(x, y) * w[0]
                    for k in stride(from: 1, through: r, by: 1) { sum += (level(x - k, y) + level(x + k, y)) * w[k] }
                    return sum
                }
                for y in 0..<height {
                    for x in 0..<width {
                        var sum = across(x, y) * w[0]
                        for k in stride(from: 1, through: r, by: 1) {
                            sum += (across(x, min(max(y - k, 0), height - 1)) + across(x, min(max(y + k, 0), height - 1))) * w[k]
                        }
                        if value(blurred.pixel(x: x, y: y)) != PremultipliedPixels.byte(sum * 255) { differing += 1 }
                    }
                }
            }
            #expect(differing == 0, "\(width)x\(height) σ \(sigma)")
        }
    }

    /// One white pixel blurred gives the kernel itself (× 255), in both directions.
    @Test func impulseResponseIsTheKernel() throws {
        let impulse = try Synthetic.image(31, 31) { x, y in x == 15 && y == 15 ? .white : .black }
        let kernel = ConvolutionKernel.gaussian(sigma: 2)
        let out = try Convolution(separable: kernel).apply(to: impulse)
        for d in 0...kernel.radius {
            let expected = Double(kernel.weights[kernel.radius + d] * kernel.weights[kernel.radius]) * 255
            #expect(abs(Double(out.pixel(x: 15 + d, y: 15).red) - expected) <= 0.5)
            #expect(abs(Double(out.pixel(x: 15, y: 15 - d).green) - expected) <= 0.5)
        }
    }

    /// Opaque red beside transparent green: blurred, no visible pixel turns green.
    @Test func transparentColourDoesNotBleed() throws {
        let picture = try Synthetic.image(40, 6, alpha: true) { x, _ in
            x < 20 ? Color(red: 255, green: 0, blue: 0) : Color(red: 0, green: 255, blue: 0, alpha: 0)
        }
        let out = try Convolution.gaussian(sigma: 3).apply(to: picture)
        for x in 0..<40 where out.pixel(x: x, y: 3).alpha > 0 {
            #expect(out.pixel(x: x, y: 3).green == 0 && out.pixel(x: x, y: 3).red == 255, "x \(x): \(out.pixel(x: x, y: 3))")
        }
        #expect(out.pixel(x: 19, y: 3).alpha < 255 && out.pixel(x: 20, y: 3).alpha > 0) // alpha itself is blurred
    }

    @Test func labHasItsReferenceValues() {
        let white = CIELab.fromSRGB(SIMD3(255, 255, 255)), red = CIELab.fromSRGB(SIMD3(255, 0, 0))
        #expect(abs(white[0] - 100) < 0.01 && abs(white[1]) < 0.01 && abs(white[2]) < 0.01)
        #expect(CIELab.fromSRGB(.zero) == .zero)
        // sRGB red in L*a*b* (D65): 53.24, 80.09, 67.20.
        #expect(abs(red[0] - 53.24) < 0.02 && abs(red[1] - 80.09) < 0.05 && abs(red[2] - 67.20) < 0.05)
    }

    @Test func labRoundTripsEveryColourWithinHalfALevel() {
        for r in stride(from: 0, through: 255, by: 15) {
            for g in stride(from: 0, through: 255, by: 15) {
                for b in stride(from: 0, through: 255, by: 15) {
                    let rgb = SIMD3<Float>(Float(r), Float(g), Float(b))
                    #expect(CIELab.toSRGB(CIELab.fromSRGB(rgb)) == rgb, "\(rgb)")
                }
            }
        }
    }
}
