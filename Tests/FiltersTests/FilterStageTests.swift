import Testing
import ImagePipe
@testable import Filters
import TestSupport

/// Pixel probes on small synthetic pictures for every filter, against definitions where one
/// can be written plainly, with their refusals and canonical text.
@Suite struct FilterStageTests {
    private func stage<S: Stage>(_ type: S.Type, _ text: String) throws -> S { try StageText.parse(type, text) }

    private func noisy(_ width: Int, _ height: Int, alpha: Bool = false, seed: UInt64 = 11) throws -> Image {
        var random = SeededGenerator(seed: seed)
        return try Synthetic.image(width, height, alpha: alpha) { _, _ in
            Color(red: .random(in: 0...255, using: &random), green: .random(in: 0...255, using: &random),
                  blue: .random(in: 0...255, using: &random), alpha: alpha ? .random(in: 0...255, using: &random) : 255)
        }
    }

    private func grey(_ v: Int) -> Color { Color(red: UInt8(v), green: UInt8(v), blue: UInt8(v)) }

    @Test func blurIsTheGaussianOfItsSigma() throws {
        let picture = try noisy(29, 13, alpha: true)
        for sigma in [0.3, 1.2, 4] {
            let kernel = ConvolutionKernel.gaussian(sigma: sigma).weights.map(Double.init)
            let reference = ConvolutionReference.convolve(picture, width: kernel.count, height: kernel.count, weights: ConvolutionReference.outer(kernel))
            #expect(ConvolutionReference.largestDifference(try stage(BlurStage.self, "\(sigma)").apply(to: picture), reference) <= 1, "σ \(sigma)")
        }
        // Its spread is σ: a white line blurred has the Gaussian's half-maximum width 2.355σ.
        let line = try Synthetic.image(61, 1) { x, _ in x == 30 ? .white : .black }
        let out = try stage(BlurStage.self, "5").apply(to: line)
        let peak = Double(out.pixel(x: 30, y: 0).red)
        let above = (0..<61).filter { Double(out.pixel(x: $0, y: 0).red) >= peak / 2 }.count
        #expect(abs(Double(above) - 2.355 * 5) <= 1.5, "\(above) pixels at half maximum")
    }

    @Test func sharpenLeavesFlatAreasAndSteepensEdges() throws {
        let flat = try Image.filled(Color(red: 90, green: 140, blue: 30), size: Size(9, 9), hasAlpha: false)
        #expect(try stage(SharpenStage.self, "sigma=2 amount=3").apply(to: flat).pixel(x: 4, y: 4) == flat.pixel(x: 4, y: 4))
        let step = try Synthetic.image(20, 3) { x, _ in x < 10 ? grey(80) : grey(160) }
        let out = try stage(SharpenStage.self, "").apply(to: step)
        #expect(out.pixel(x: 9, y: 1).red < 80 && out.pixel(x: 10, y: 1).red > 160, "\(out.pixel(x: 9, y: 1)) \(out.pixel(x: 10, y: 1))")
        #expect(out.pixel(x: 0, y: 1).red == 80 && out.pixel(x: 19, y: 1).red == 160) // far from the edge: untouched
        // Symmetric about the edge.
        #expect(80 - Int(out.pixel(x: 9, y: 1).red) == Int(out.pixel(x: 10, y: 1).red) - 160)
        #expect(try stage(SharpenStage.self, "amount=0").apply(to: step).pixel(x: 9, y: 1).red == 80)
    }

    /// On lightness: the same difference goes into R, G and B, so Cb and Cr stay as they were.
    @Test func sharpenChangesLumaOnly() throws {
        let edge = try Synthetic.image(16, 2) { x, _ in x < 8 ? Color(red: 150, green: 60, blue: 40) : Color(red: 60, green: 110, blue: 170) }
        let out = try stage(SharpenStage.self, "amount=0.5").apply(to: edge)
        for x in 0..<16 {
            let p = edge.pixel(x: x, y: 0), q = out.pixel(x: x, y: 0)
            let d = [Int(q.red) - Int(p.red), Int(q.green) - Int(p.green), Int(q.blue) - Int(p.blue)]
            #expect(d.max()! - d.min()! <= 1, "x \(x): \(d)")
        }
    }

    @Test func sharpenThresholdSparesSmallDifferences() throws {
        let faint = try Synthetic.image(20, 3) { x, _ in x < 10 ? grey(100) : grey(104) }
        let out = try stage(SharpenStage.self, "amount=2 threshold=5").apply(to: faint)
        for x in 0..<20 { #expect(out.pixel(x: x, y: 1) == faint.pixel(x: x, y: 1)) }
        #expect(try stage(SharpenStage.self, "amount=2").apply(to: faint).pixel(x: 10, y: 1).red > 104)
    }

    @Test func sharpenKeepsAlpha() throws {
        let picture = try noisy(7, 7, alpha: true)
        let out = try stage(SharpenStage.self, "").apply(to: picture)
        for x in 0..<7 { #expect(out.pixel(x: x, y: 3).alpha == picture.pixel(x: x, y: 3).alpha) }
    }

    /// The median of each channel's window at (x, y), clamped at the edges: the definition.
    private func windowMedian(_ picture: Image, x: Int, y: Int, radius r: Int) -> [Int] {
        var window: [[Int]] = [[], [], [], []]
        for dy in -r...r {
            for dx in -r...r {
                let p = picture.pixel(x: min(max(x + dx, 0), picture.width - 1), y: min(max(y + dy, 0), picture.height - 1))
                for (c, v) in [p.red, p.green, p.blue, p.alpha].enumerated() { window[c].append(Int(v)) }
            }
        }
        return window.map { $0.sorted()[$0.count / 2] }
    }

    /// Against the definition, up to a window larger than the picture (15 on 11 rows).
    @Test(arguments: [3, 5, 15])
    func medianIsTheWindowsMiddleValue(size: Int) throws {
        let picture = try noisy(17, 11, alpha: true)
        let out = try stage(MedianStage.self, "\(size)").apply(to: picture)
        for y in 0..<11 {
            for x in 0..<17 {
                let q = out.pixel(x: x, y: y)
                #expect([q.red, q.green, q.blue, q.alpha].map(Int.init) == windowMedian(picture, x: x, y: y, radius: size / 2), "\(x),\(y)")
            }
        }
    }

    /// In a run that can be stopped the filters' bands go in pieces (`RowBands`), each piece
    /// filtering its own rows around it: the pixels are the same as in one go.
    @Test func filtersInPiecesGiveTheSamePixels() throws {
        let picture = try noisy(1500, 700, seed: 9)
        let filters: [any Transform] = [try stage(BlurStage.self, "3"), try stage(MedianStage.self, "11"),
                                        try stage(SharpenStage.self, "")]
        for filter in filters {
            let whole = try filter.apply(to: picture)
            let pieces = try StageContext(cancellation: Cancellation()).bound { try filter.apply(to: picture) }
            #expect((0..<700).allSatisfy { y in Array(whole.row(y)) == Array(pieces.row(y)) }, "\(filter.text)")
        }
    }

    /// An area stage's promise (`StageClass.area`), held by the conformance kit: any strip of
    /// its output, made from the window of rows `radius` above and below it, is the whole
    /// picture's rows, byte for byte (here with parameters the examples do not use).
    @Test func areaStagesGiveOnWindowsTheRowsTheyGiveOnTheWhole() throws {
        let filters: [any Transform] = [try stage(BlurStage.self, "3"), try stage(SharpenStage.self, "amount=2"),
                                        try stage(MedianStage.self, "5"), try stage(ConvolveStage.self, "3x5 1,2,1,2,4,2,1,2,1,0,1,0,1,1,1")]
        for filter in filters {
            guard case .area = filter.stageClass else {
                Issue.record("\(filter.text) is not an area stage")
                continue
            }
            #expect(StageConformance().findings(for: filter) == [], "\(filter.text)")
        }
    }

    /// Each band reuses its histogram from row to row: split into bands (their number fixed,
    /// so on any machine), every row is still its window's median, the first of a band too.
    @Test(arguments: [1, 2, 5])
    func medianInBandsIsTheWindowsMiddleValue(bands: Int) throws {
        let picture = try noisy(23, 20, alpha: false, seed: 4)
        let out = try MedianFilter(radius: 1, bands: bands).apply(to: picture)
        for y in 0..<20 {
            for x in 0..<23 {
                let q = out.pixel(x: x, y: y)
                #expect([q.red, q.green, q.blue, q.alpha].map(Int.init) == windowMedian(picture, x: x, y: y, radius: 1), "\(x),\(y)")
            }
        }
    }

    /// Salt noise: a 3×3 speck survives a 3×3 window (it is the whole window at its centre)
    /// and goes in a 5×5 one (9 of 25 values); lone white pixels go in either. Size 1 is the
    /// picture itself.
    @Test func medianRemovesSaltNoiseOfLessThanHalfItsWindow() throws {
        let salt: Set<[Int]> = [[2, 3], [14, 2], [7, 11], [16, 15]]
        let speck = 9...11
        let picture = try Synthetic.image(20, 20) { x, y in
            salt.contains([x, y]) || (speck.contains(x) && speck.contains(y)) ? .white : grey(60)
        }
        let three = try stage(MedianStage.self, "3").apply(to: picture)
        let five = try stage(MedianStage.self, "5").apply(to: picture)
        for point in salt {
            #expect(three.pixel(x: point[0], y: point[1]) == grey(60) && five.pixel(x: point[0], y: point[1]) == grey(60), "\(point)")
        }
        #expect(three.pixel(x: 10, y: 10) == .white && five.pixel(x: 10, y: 10) == grey(60))
        #expect((0..<20).allSatisfy { y in (0..<20).allSatisfy { x in five.pixel(x: x, y: y) == grey(60) } })
        let one = try stage(MedianStage.self, "1").apply(to: picture)
        #expect((0..<20).allSatisfy { y in (0..<20).allSatisfy { x in one.pixel(x: x, y: y) == picture.pixel(x: x, y: y) } })
    }

    @Test func medianRemovesSpecksAndKeepsEdges() throws {
        let specks = try Synthetic.image(12, 12) { x, y in (x == 4 && y == 4) || (x == 9 && y == 2) ? .white : (x < 6 ? .black : grey(200)) }
        let out = try stage(MedianStage.self, "").apply(to: specks)
        #expect(out.pixel(x: 4, y: 4) == .black && out.pixel(x: 9, y: 2) == grey(200))
        #expect(out.pixel(x: 5, y: 8) == .black && out.pixel(x: 6, y: 8) == grey(200)) // the edge stays sharp
        #expect(throws: ArgumentError.self) { try stage(MedianStage.self, "4") }
    }

    @Test func convolveAppliesItsKernelScaleAndOffset() throws {
        let picture = try noisy(9, 7, alpha: true)
        #expect(try stage(ConvolveStage.self, "1x1 1").apply(to: picture).pixel(x: 3, y: 3) == picture.pixel(x: 3, y: 3))
        // The 3×3 box against the definition.
        let box = try stage(ConvolveStage.self, "3x3 1,1,1,1,1,1,1,1,1").apply(to: picture)
        let reference = ConvolutionReference.convolve(picture, width: 3, height: 3, weights: [Double](repeating: 1.0 / 9, count: 9))
        #expect(ConvolutionReference.largestDifference(box, reference) <= 1)
        // An edge kernel sums to 0: scale auto is 1, a flat picture gives the offset, alpha is kept.
        let flat = try Image.filled(Color(red: 50, green: 60, blue: 70, alpha: 200), size: Size(5, 5))
        let edges = try stage(ConvolveStage.self, "3x3 -1,-1,-1,-1,8,-1,-1,-1,-1 offset=128").apply(to: flat)
        #expect(edges.pixel(x: 2, y: 2) == Color(red: 128, green: 128, blue: 128, alpha: 200))
        // An explicit scale divides: 2× the identity, halved.
        let doubled = try stage(ConvolveStage.self, "1x3 0,2,0 scale=4").apply(to: flat)
        #expect(doubled.pixel(x: 2, y: 2) == Color(red: 25, green: 30, blue: 35, alpha: 200))
    }

    @Test func convolveRefusesKernelsThatDoNotFit() {
        for bad in ["3x3 1,2,3", "2x2 1,1,1,1", "3x1 1,1,1 scale=0", "16x1 1", "3x3"] {
            #expect(throws: ArgumentError.self, "\(bad)") { try stage(ConvolveStage.self, bad) }
        }
    }

    @Test func canonicalText() throws {
        #expect(try StageText.roundTrips(BlurStage.self, "sigma=3", canonical: "blur 3"))
        #expect(try StageText.roundTrips(SharpenStage.self, "sigma=1 amount=1 threshold=0", canonical: "sharpen"))
        #expect(try StageText.roundTrips(SharpenStage.self, "amount=0.5 sigma=2", canonical: "sharpen sigma=2 amount=0.5"))
        #expect(try StageText.roundTrips(MedianStage.self, "size=3", canonical: "median"))
        #expect(try StageText.roundTrips(MedianStage.self, "7", canonical: "median 7"))
        #expect(try StageText.roundTrips(ConvolveStage.self, "3x1 1,2,1 scale=auto offset=0", canonical: "convolve 3x1 1,2,1"))
        #expect(try StageText.roundTrips(ConvolveStage.self, "1x3 0,2,0 scale=4 offset=-3", canonical: "convolve 1x3 0,2,0 scale=4 offset=-3"))
    }

    @Test func explanations() throws {
        #expect(try stage(BlurStage.self, "3").explanation(for: Size(9, 9)) == "Gaussian σ 3: 19 taps across, then 19 down, premultiplied, edges clamped")
        #expect(try stage(ConvolveStage.self, "3x3 1,1,1,1,1,1,1,1,1").explanation(for: Size(9, 9)) == "3x3 kernel, ÷ 9, premultiplied, edges clamped")
    }
}
