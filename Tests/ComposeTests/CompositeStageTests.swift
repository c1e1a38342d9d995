import Testing
import ImagePipe
import Compose
import TestSupport

@Suite struct CompositeStageTests {
    private func flat(_ width: Int, _ height: Int, _ color: Color, alpha: Bool = false) throws -> Image {
        try Synthetic.image(width, height, alpha: alpha) { _, _ in color }
    }

    /// Writes `image` as a PNG in a fresh directory and returns its path (kept alive by `directory`).
    private func file(_ image: Image, in directory: TemporaryDirectory, _ name: String = "overlay.png") throws -> String {
        try directory.write(image.encoded(as: .png), to: name)
    }

    // MARK: placement

    @Test func gravityAndOffsetPlaceTheOverlay() {
        let canvas = Size(100, 50), overlay = Size(10, 6)
        #expect(Gravity.bottomRight.origin(of: overlay, on: canvas, offset: .zero) == (90, 44))
        #expect(Gravity.bottomRight.origin(of: overlay, on: canvas, offset: Point(5, 3)) == (85, 41))
        #expect(Gravity.topLeft.origin(of: overlay, on: canvas, offset: Point(5, 3)) == (5, 3))
        // Centring rounds halves away from zero: (100 − 9) / 2 = 45.5 → 46; (50 − 6) / 2 = 22.
        #expect(Gravity.center.origin(of: Size(9, 6), on: canvas, offset: .zero) == (46, 22))
        #expect(Gravity.center.origin(of: overlay, on: canvas, offset: Point(-5, 2)) == (40, 24))
        #expect(Gravity.top.origin(of: overlay, on: canvas, offset: Point(1, 1)) == (46, 1))
        #expect(Gravity.right.origin(of: overlay, on: canvas, offset: Point(1, 1)) == (89, 23))
        #expect(Gravity.bottomLeft.origin(of: overlay, on: canvas, offset: Point(2, 2)) == (2, 42))
    }

    @Test func autoScaleFitsOnlyALargerOverlay() {
        #expect(CompositeStage.placedSize(of: Size(40, 20), on: Size(100, 100), scale: nil) == Size(40, 20))
        #expect(CompositeStage.placedSize(of: Size(400, 200), on: Size(100, 100), scale: nil) == Size(100, 50))
        #expect(CompositeStage.placedSize(of: Size(200, 400), on: Size(100, 100), scale: nil) == Size(50, 100))
        #expect(CompositeStage.placedSize(of: Size(40, 20), on: Size(100, 100), scale: 0.5) == Size(50, 25))
        #expect(CompositeStage.placedSize(of: Size(1, 1000), on: Size(3, 3), scale: nil) == Size(1, 3))
        // A fit as a viewer fits (`FitViewport`): 7×18 into a height of 9 is 3.5 wide, which
        // rounds half away from zero to 4.
        #expect(CompositeStage.placedSize(of: Size(7, 18), on: Size(10, 9), scale: nil) == Size(4, 9))
    }

    // MARK: pixels

    @Test func overIsPorterDuffSourceOverAtTheOverlaysEdge() throws {
        // A 4×4 overlay: opaque red on the left half, half-transparent blue on the right.
        let overlay = try Synthetic.image(4, 4, alpha: true) { x, _ in
            x < 2 ? Color(red: 255, green: 0, blue: 0) : Color(red: 0, green: 0, blue: 255, alpha: 128)
        }
        let base = try flat(10, 10, Color(red: 0, green: 200, blue: 0))
        let result = try Compositor.composite(overlay, onto: base, at: (6, 6))
        #expect(!result.hasAlpha)
        #expect(result.pixel(x: 5, y: 5) == Color(red: 0, green: 200, blue: 0)) // just outside
        #expect(result.pixel(x: 6, y: 6) == Color(red: 255, green: 0, blue: 0)) // first overlay pixel
        #expect(result.pixel(x: 7, y: 9) == Color(red: 255, green: 0, blue: 0)) // last row, opaque
        // 128/255 of blue over green 200: blue 128, green 200 × 127/255 = 99.6.
        #expect(Synthetic.close(result.pixel(x: 9, y: 9), Color(red: 0, green: 100, blue: 128), tolerance: 1))
        #expect(result.pixel(x: 5, y: 9) == Color(red: 0, green: 200, blue: 0))
    }

    @Test func overOnATransparentPictureKeepsStraightColour() throws {
        // Half-transparent white over fully transparent black: straight colour must stay white,
        // not darken (the fringe premultiplication avoids), and alpha becomes the overlay's.
        let overlay = try flat(2, 2, Color(red: 255, green: 255, blue: 255, alpha: 128), alpha: true)
        let base = try flat(2, 2, .transparent, alpha: true)
        let result = try Compositor.composite(overlay, onto: base, at: (0, 0))
        #expect(result.hasAlpha)
        #expect(result.pixel(x: 0, y: 0) == Color(red: 255, green: 255, blue: 255, alpha: 128))
        // Over a half-transparent red: αo = 0.502 + 0.502 × 0.498 = 0.752 → 192;
        // colour = (white × 0.502 + red × 0.502 × 0.498) / 0.752.
        let red = try flat(1, 1, Color(red: 255, green: 0, blue: 0, alpha: 128), alpha: true)
        let mixed = try Compositor.composite(overlay, onto: red, at: (0, 0)).pixel(x: 0, y: 0)
        #expect(Synthetic.close(mixed, Color(red: 255, green: 170, blue: 170, alpha: 192), tolerance: 1), "\(mixed)")
    }

    @Test func opacityMultipliesTheOverlaysAlpha() throws {
        let overlay = try flat(2, 2, .white)
        let base = try flat(2, 2, .black)
        let half = try Compositor.composite(overlay, onto: base, at: (0, 0), opacity: 0.5).pixel(x: 1, y: 1)
        #expect(Synthetic.close(half, Color(red: 128, green: 128, blue: 128), tolerance: 1))
        #expect(try Compositor.composite(overlay, onto: base, at: (0, 0), opacity: 0).pixel(x: 0, y: 0) == .black)
        let quarter = try Compositor.composite(try flat(1, 1, Color(red: 255, green: 255, blue: 255, alpha: 128), alpha: true),
                                               onto: base, at: (0, 0), opacity: 0.5).pixel(x: 0, y: 0)
        #expect(Synthetic.close(quarter, Color(red: 64, green: 64, blue: 64), tolerance: 1), "\(quarter)")
    }

    /// Each separable mode on known colours: base (0.2, 0.6, 1), overlay (0.8, 0.4, 0), both
    /// opaque, so the result is B(Cb, Cs) itself.
    @Test(arguments: [
        (BlendMode.multiply, [0.16, 0.24, 0.0]),
        (.screen, [0.84, 0.76, 1.0]),
        (.overlay, [0.32, 0.52, 1.0]), // Cb ≤ ½: 2·Cs·Cb; Cb > ½: screen(Cs, 2Cb − 1)
        (.darken, [0.2, 0.4, 0.0]),
        (.lighten, [0.8, 0.6, 1.0]),
        (.over, [0.8, 0.4, 0.0]),
    ])
    func separableBlendModesFollowTheW3CFormulas(mode: BlendMode, expected: [Double]) throws {
        let base = try flat(1, 1, Color(red: 51, green: 153, blue: 255))
        let overlay = try flat(1, 1, Color(red: 204, green: 102, blue: 0))
        let result = try Compositor.composite(overlay, onto: base, at: (0, 0), blend: mode).pixel(x: 0, y: 0)
        let want = Color(red: UInt8((expected[0] * 255).rounded()), green: UInt8((expected[1] * 255).rounded()),
                         blue: UInt8((expected[2] * 255).rounded()))
        #expect(Synthetic.close(result, want, tolerance: 1), "\(mode): \(result), want \(want)")
    }

    @Test func aHalfTransparentMultiplyMixesWithTheBase() throws {
        // co = Cs·αs·(1 − αb) + Cb·αb·(1 − αs) + αs·αb·Cb·Cs with αb = 1, αs = 0.5:
        // = 0.5·Cb + 0.5·Cb·Cs; Cb = 1 (white), Cs = 0.2 → 0.6.
        let overlay = try flat(1, 1, Color(red: 51, green: 51, blue: 51, alpha: 128), alpha: true)
        let result = try Compositor.composite(overlay, onto: try flat(1, 1, .white), at: (0, 0), blend: .multiply).pixel(x: 0, y: 0)
        #expect(Synthetic.close(result, Color(red: 153, green: 153, blue: 153), tolerance: 1), "\(result)")
    }

    @Test func destInMasksAndDestOutCuts() throws {
        // The overlay covers the left 2 columns of a 4×1 picture; its alpha is 255, then 64.
        let overlay = try Synthetic.image(2, 1, alpha: true) { x, _ in Color(red: 9, green: 9, blue: 9, alpha: x == 0 ? 255 : 64) }
        let base = try flat(4, 1, Color(red: 10, green: 20, blue: 30))
        let kept = try Compositor.composite(overlay, onto: base, at: (0, 0), blend: .destIn)
        #expect(kept.hasAlpha)
        #expect(kept.pixel(x: 0, y: 0) == Color(red: 10, green: 20, blue: 30, alpha: 255))
        #expect(kept.pixel(x: 1, y: 0) == Color(red: 10, green: 20, blue: 30, alpha: 64))
        #expect(kept.pixel(x: 2, y: 0).alpha == 0 && kept.pixel(x: 3, y: 0).alpha == 0) // where the overlay does not reach
        let cut = try Compositor.composite(overlay, onto: base, at: (0, 0), blend: .destOut)
        #expect(cut.pixel(x: 0, y: 0).alpha == 0)
        #expect(cut.pixel(x: 1, y: 0) == Color(red: 10, green: 20, blue: 30, alpha: 191))
        #expect(cut.pixel(x: 3, y: 0) == Color(red: 10, green: 20, blue: 30, alpha: 255))
    }

    @Test func tilesCoverThePictureFromTheGravityPosition() throws {
        // A 3×2 overlay whose pixel (x, y) has red 100 + x, green 100 + y, opaque.
        let overlay = try Synthetic.image(3, 2) { x, y in Color(red: UInt8(100 + x), green: UInt8(100 + y), blue: 0) }
        let base = try flat(10, 7, .black)
        // One copy at (4, 1); the grid repeats from there in every direction.
        let result = try Compositor.composite(overlay, onto: base, at: (4, 1), tile: true)
        for y in 0..<7 {
            for x in 0..<10 {
                let expected = Color(red: UInt8(100 + ((x - 4) % 3 + 3) % 3), green: UInt8(100 + ((y - 1) % 2 + 2) % 2), blue: 0)
                #expect(result.pixel(x: x, y: y) == expected, "(\(x), \(y))")
            }
        }
    }

    @Test func anOverlayOutsideThePictureChangesNothing() throws {
        let base = try Synthetic.gradient(8, 8)
        let overlay = try flat(4, 4, .white)
        for origin in [(-4, 0), (8, 0), (0, -4), (0, 8), (-1_000_000, 1_000_000)] {
            let result = try Compositor.composite(overlay, onto: base, at: origin)
            #expect((0..<8).allSatisfy { y in (0..<8).allSatisfy { x in result.pixel(x: x, y: y) == base.pixel(x: x, y: y) } })
        }
        // Partly outside: only the part inside is drawn.
        let corner = try Compositor.composite(overlay, onto: base, at: (-2, -2))
        #expect(corner.pixel(x: 1, y: 1) == .white && corner.pixel(x: 2, y: 2) == base.pixel(x: 2, y: 2))
    }

    /// Split into row bands (their number fixed, so that the banded path runs whatever the
    /// machine's cores), every row is still right: the same as in one band, and each pixel the
    /// overlay's at its place in the tiling.
    @Test(arguments: [2, 3, 7])
    func rowBandsGiveTheSameResultAsOneBand(bands: Int) throws {
        let base = try Synthetic.gradient(61, 53, alpha: true)
        let overlay = try Synthetic.image(7, 5, alpha: true) { x, y in Color(red: UInt8(x * 30), green: UInt8(y * 40), blue: 200, alpha: UInt8(60 + x * 20)) }
        for blend in [BlendMode.over, .multiply, .destIn] {
            let banded = try Compositor.composite(overlay, onto: base, at: (3, 2), tile: true, blend: blend, opacity: 0.7, bands: bands)
            let whole = try Compositor.composite(overlay, onto: base, at: (3, 2), tile: true, blend: blend, opacity: 0.7, bands: 1)
            #expect((0..<53).allSatisfy { y in (0..<61).allSatisfy { x in banded.pixel(x: x, y: y) == whole.pixel(x: x, y: y) } }, "\(blend)")
        }
        let flatBase = try flat(61, 53, Color(red: 10, green: 20, blue: 30))
        let tiled = try Compositor.composite(overlay, onto: flatBase, at: (3, 2), tile: true, opacity: 0.7, bands: bands)
        let single = try Compositor.composite(overlay, onto: try flat(7, 5, Color(red: 10, green: 20, blue: 30)), at: (0, 0), opacity: 0.7)
        for y in 0..<53 {
            for x in 0..<61 where tiled.pixel(x: x, y: y) != single.pixel(x: ((x - 3) % 7 + 7) % 7, y: ((y - 2) % 5 + 5) % 5) {
                Issue.record("(\(x), \(y)) in \(bands) bands")
            }
        }
    }

    // MARK: the stage

    @Test func theStageScalesAndPlacesAFileOverlay() throws {
        let directory = try TemporaryDirectory()
        let path = try file(try flat(20, 10, Color(red: 255, green: 0, blue: 0)), in: directory)
        let stage = CompositeStage(overlay: path, offset: Point(2, 2), scale: 0.5)
        let base = try flat(40, 30, .black)
        #expect(try stage.outputSize(for: base.size) == base.size)
        let result = try stage.apply(to: base)
        // 20 px wide (half of 40), 10 high; its bottom-right corner 2 px in: columns 18…37, rows 18…27.
        #expect(result.pixel(x: 18, y: 18) == Color(red: 255, green: 0, blue: 0))
        #expect(result.pixel(x: 37, y: 27) == Color(red: 255, green: 0, blue: 0))
        #expect(result.pixel(x: 17, y: 18) == .black && result.pixel(x: 38, y: 27) == .black && result.pixel(x: 37, y: 28) == .black)
        #expect(try stage.explanation(for: base.size) == "\(path) 20x10 at 18,18 (bottom-right offset 2,2) blend over")
        #expect(try CompositeStage(overlay: path, tile: true, scale: 0.25).explanation(for: base.size)
                == "\(path) 20x10 scaled to 10x5 tiled from 30,25 (bottom-right) blend over")
    }

    @Test func aBatchDecodesTheOverlayOnce() throws {
        let directory = try TemporaryDirectory()
        let path = try file(try flat(4, 4, .white), in: directory, "once.png")
        let inputs = try (0..<5).map { index in try directory.write(Synthetic.gradient(16 + index, 12).encoded(as: .png), to: "in\(index).png") }
        let pipeline = Pipeline(transforms: [CompositeStage(overlay: path)])
        for (index, input) in inputs.enumerated() {
            try pipeline.run(in: RunContext(input: input, output: directory.file("out\(index).png")))
        }
        #expect(OverlayCache.shared.decodeCount(of: path) == 1)
        let out = try Image.load(path: directory.file("out4.png"))
        #expect(out.pixel(x: 19, y: 11) == .white && out.pixel(x: 15, y: 7) != .white)
    }

    @Test func aBatchScalesTheOverlayOncePerSize() throws {
        let directory = try TemporaryDirectory()
        let logo = try Synthetic.gradient(40, 20, alpha: true)
        let path = try file(logo, in: directory, "scaled-once.png")
        let inputs = try (0..<4).map { index in try directory.write(Synthetic.gradient(48, 30).encoded(as: .png), to: "in\(index).png") }
        let pipeline = Pipeline(transforms: [CompositeStage(overlay: path, offset: Point(3, 2), scale: 0.5)])
        for (index, input) in inputs.enumerated() {
            try pipeline.run(in: RunContext(input: input, output: directory.file("out\(index).png")))
        }
        #expect(OverlayCache.shared.decodeCount(of: path) == 1)
        #expect(OverlayCache.shared.scaleCount(of: path) == 1)
        // The cached scaling gives the pixels scaling it anew gives: 24×12, bottom-right 3,2 in.
        let expected = try Compositor.composite(try Image.load(path: path).scaled(to: Size(24, 12)),
                                                onto: try Image.load(path: inputs[3]), at: (21, 16))
        let out = try Image.load(path: directory.file("out3.png"))
        #expect(out.size == expected.size)
        #expect((0..<30).allSatisfy { y in (0..<48).allSatisfy { x in out.pixel(x: x, y: y) == expected.pixel(x: x, y: y) } })
        // The same scaling is the same picture; another size, kernel or light is scaled anew.
        func scaled(_ size: Size, _ kernel: Kernel? = nil, linear: Bool = false) throws -> Image {
            try OverlayCache.shared.image(at: path, options: LoadOptions(), kernel: kernel, linearLight: linear) { _ in size }
        }
        let first = try scaled(Size(24, 12)), counted = OverlayCache.shared.scaleCount(of: path)
        #expect(try scaled(Size(24, 12)) === first)
        #expect(OverlayCache.shared.scaleCount(of: path) == counted)
        _ = try scaled(Size(10, 5))
        _ = try scaled(Size(24, 12), .mitchell)
        _ = try scaled(Size(24, 12), linear: true)
        #expect(OverlayCache.shared.scaleCount(of: path) == counted + 3)
        // At its own size the overlay is not scaled at all.
        #expect(try scaled(logo.size).size == logo.size && OverlayCache.shared.scaleCount(of: path) == counted + 3)
        // Only the last `scaledCapacity` scalings are kept: the least recently used goes first.
        let small = OverlayCache(scaledCapacity: 2)
        for width in [10, 12, 10, 14, 10, 12] {
            _ = try small.image(at: path, options: LoadOptions(), kernel: nil, linearLight: false) { _ in Size(width, width / 2) }
        }
        #expect(small.scaleCount(of: path) == 4) // 10, 12, 14 (drops 12), 12 again
    }

    @Test func aMissingOverlayIsRefusedByThePlan() throws {
        let pipeline = Pipeline(transforms: [CompositeStage(overlay: "/nonexistent/logo.png")])
        #expect(throws: PipelineError.self) { try pipeline.plan(sourceSize: Size(10, 10)) }
        do {
            _ = try pipeline.plan(sourceSize: Size(10, 10))
        } catch let error as PipelineError {
            #expect(error.message.contains("/nonexistent/logo.png") && error.message.contains("overlay"), "\(error.message)")
        }
    }

    @Test func overlaysObeyTheRunsFormatAllowlist() throws {
        let directory = try TemporaryDirectory()
        let path = try directory.write(try flat(4, 4, .white).encoded(as: .bmp), to: "logo.bmp")
        let input = try directory.write(Synthetic.gradient(16, 12).encoded(as: .png), to: "in.png")
        let pipeline = Pipeline(transforms: [CompositeStage(overlay: path)])
        var options = LoadOptions()
        options.allowedFormats = [.png]
        #expect(throws: PipelineError.self) {
            try pipeline.run(in: RunContext(input: input, output: directory.file("out.png"), loadOptions: options))
        }
        options.allowedFormats = [.png, .bmp]
        try pipeline.run(in: RunContext(input: input, output: directory.file("out.png"), loadOptions: options))
        #expect(try Image.load(path: directory.file("out.png")).pixel(x: 15, y: 11) == .white)
    }

    @Test func canonicalTextRoundTrips() throws {
        let stage = try StageTextParsing.parse(CompositeStage.self, ["logo.png", "gravity=center", "offset=5,-3", "opacity=0.5",
                                                                      "blend=dest-out", "tile=true", "scale=0.25"])
        #expect(stage.text == "composite logo.png gravity=center offset=5,-3 opacity=0.5 blend=dest-out tile=true scale=0.25")
        let again = try StageTextParsing.parse(CompositeStage.self, stage.text.split(separator: " ").dropFirst().map(String.init))
        #expect(again == stage)
        #expect(try StageTextParsing.parse(CompositeStage.self, ["logo.png"]).text == "composite logo.png")
    }

    /// Every extreme value is either refused with a message that names the stage and the
    /// parameter, or accepted — exactly these — and then composites any picture at its size.
    @Test func extremeValuesAreRefusedOrHandled() throws {
        let directory = try TemporaryDirectory()
        let path = try file(try Synthetic.gradient(5, 3, alpha: true), in: directory)
        let values = ["0", "-1", "nan", "inf", "1e308", "1e308,1e308", "-1e308,5", "nan,nan", "0.00001", "1", "2", "", "auto", "true"]
        let accepted: [String: Set<String>] = ["opacity": ["0", "0.00001", "1"], "tile": ["true"], "scale": ["1", "auto"],
                                               "kernel": ["auto"], "linear": ["true"]]
        for parameter in ["gravity", "offset", "opacity", "blend", "tile", "scale", "kernel", "linear"] {
            for value in values {
                let words = [path, "\(parameter)=\(value)"]
                guard accepted[parameter, default: []].contains(value) else {
                    let error = try #require(throws: ArgumentError.self, "\(parameter)=\(value)") {
                        try StageTextParsing.parse(CompositeStage.self, words)
                    }
                    #expect(error.message.hasPrefix("composite: ") && error.message.contains(parameter), "\(parameter)=\(value): \(error.message)")
                    continue
                }
                let stage = try StageTextParsing.parse(CompositeStage.self, words)
                #expect(try StageTextParsing.parse(CompositeStage.self, stage.text.split(separator: " ").dropFirst().map(String.init)) == stage)
                for picture in [try Synthetic.gradient(1, 1), try Synthetic.gradient(3, 2, alpha: true), try Synthetic.gradient(17, 31)] {
                    let result = try stage.apply(to: picture)
                    #expect(result.size == picture.size, "\(stage.text) on \(picture.size)")
                    if parameter == "opacity" && value == "0" {
                        #expect((0..<picture.height).allSatisfy { y in (0..<picture.width).allSatisfy { x in result.pixel(x: x, y: y) == picture.pixel(x: x, y: y) } })
                    }
                }
            }
        }
    }
}

/// Stages from argument words, as the pipeline language splits them.
enum StageTextParsing {
    static func parse<S: Stage>(_ type: S.Type, _ words: [String]) throws -> S {
        try S.parse(words.map { word in
            let parts = word.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            return parts.count == 2 ? RawArgument(key: String(parts[0]), String(parts[1])) : RawArgument(word)
        })
    }
}
