import Testing
import ImagePipe
import Geometry
import TestSupport

@Suite struct ResizeStageTests {
    private let pattern = { (x: Int, y: Int) in Color(red: UInt8(x % 256), green: UInt8(y % 256), blue: UInt8((x * 7 + y * 3) % 256)) }

    /// A stage made in code is checked as the language checks text: values the language refuses
    /// are refused when a pipeline plans or applies it, with the language's own message.
    @Test func stagesMadeInCodeAreCheckedAsTextIs() throws {
        let picture = try Synthetic.gradient(40, 30)
        let cases: [(ResizeStage, String)] = [
            (ResizeStage(ResizeSize(20, 20), fit: .inside, position: .attention), "position=attention chooses a window to cut"),
            (ResizeStage(ResizeSize(0, 0)), "resize: invalid size '0x0'"),
            (ResizeStage(ResizeSize(-5, 10)), "resize: invalid size '-5x10'"),
        ]
        for (stage, message) in cases {
            let pipeline = Pipeline(transforms: [stage])
            let applied = try #require(throws: ArgumentError.self) { try pipeline.applyTransforms(to: picture) }
            #expect(applied.message.contains(message), "\(applied.message)")
            #expect(throws: ArgumentError.self) { try pipeline.plan(sourceSize: Size(40, 30)) }
            // The same words as text are refused by the language too.
            #expect(throws: (any Error).self) { try parse(stage.text.split(separator: " ", maxSplits: 1).dropFirst().joined()) }
        }
        // A good one runs as before.
        #expect(try Pipeline(transforms: [ResizeStage(ResizeSize(20, 15))]).applyTransforms(to: picture).size == Size(20, 15))
    }

    private func parse(_ text: String) throws -> ResizeStage { try StageText.parse(ResizeStage.self, text) }

    @Test func oneSideKeepsTheAspect() throws {
        #expect(try parse("640x").outputSize(for: Size(1280, 960)) == Size(640, 480))
        #expect(try parse("x480").outputSize(for: Size(1280, 960)) == Size(640, 480))
        // Odd: 303x201 to 101 wide is ×1/3: 67 rows.
        #expect(try parse("101x").outputSize(for: Size(303, 201)) == Size(101, 67))
        #expect(try parse("x7").outputSize(for: Size(10, 3)) == Size(23, 7))
        // The fit does not matter with one side, as in sharp.
        #expect(try parse("640x fit=fill").outputSize(for: Size(1280, 960)) == Size(640, 480))
    }

    @Test func percentages() throws {
        // 50% of 101x51: 50.5 and 25.5 round half away from zero.
        #expect(try parse("50%").outputSize(for: Size(101, 51)) == Size(51, 26))
        #expect(try parse("50%x25%").outputSize(for: Size(200, 100)) == Size(50, 25)) // inside: the smaller scale
        #expect(try parse("50%x25% fit=cover").outputSize(for: Size(200, 100)) == Size(100, 25)) // cover: both sides exact
        #expect(try parse("200%x").outputSize(for: Size(3, 5)) == Size(6, 10))
        #expect(try parse("x10%").outputSize(for: Size(1000, 1000)) == Size(100, 100))
    }

    /// Both sides fit inside by default, as ImageMagick's -resize, vips thumbnail and Pillow's
    /// thumbnail do; one number is a square box, as fit reads it; a position chooses cover.
    @Test func bothSidesFitInsideByDefault() throws {
        #expect(try parse("640x480").outputSize(for: Size(6000, 4000)) == Size(640, 427))
        #expect(try parse("640").outputSize(for: Size(6000, 4000)) == Size(640, 427))
        #expect(try parse("640").outputSize(for: Size(3000, 4000)) == Size(480, 640))
        #expect(try parse("640x480").text == "resize 640x480" && (try parse("640").text) == "resize 640x640")
        #expect(try parse("640x480 fit=cover").outputSize(for: Size(6000, 4000)) == Size(640, 480))
        #expect(try parse("640x480 position=top").mode == .cover && (try parse("640x480 position=top").outputSize(for: Size(6000, 4000))) == Size(640, 480))
        #expect(try parse("640x480 fit=inside position=top").mode == .inside)
    }

    @Test func coverCutsTheCentreAtScaleOne() throws {
        // 200x100 into 100x100 covers at scale 1: a plain centred crop, pixel for pixel.
        let source = try Synthetic.image(200, 100, pattern)
        let stage = try parse("100x100 fit=cover")
        #expect(stage.layout(for: source.size).window == Region(x: 50, y: 0, width: 100, height: 100))
        let result = try stage.apply(to: source)
        #expect(result.size == Size(100, 100) && !result.hasAlpha)
        for (x, y) in [(0, 0), (99, 0), (50, 50), (99, 99)] { #expect(result.pixel(x: x, y: y) == source.pixel(x: 50 + x, y: y)) }
        // Odd room (201 − 100 = 101): the corner rounds down to whole pixels.
        #expect(stage.layout(for: Size(201, 100)).window == Region(x: 50, y: 0, width: 100, height: 100))
    }

    @Test func coverScalesTheWindowAtPosition() throws {
        let source = try Synthetic.halves(400, 200) // red left, blue right
        let centre = try parse("100x100 fit=cover").apply(to: source)
        #expect(Synthetic.close(centre.pixel(x: 10, y: 50), Color(red: 255, green: 0, blue: 0), tolerance: 1))
        #expect(Synthetic.close(centre.pixel(x: 90, y: 50), Color(red: 0, green: 0, blue: 255), tolerance: 1))
        let left = try parse("100x100 position=left")
        #expect(left.layout(for: source.size).window == Region(x: 0, y: 0, width: 200, height: 200))
        // (The kernel reads past the window's edge, into the picture's own blue: probe inside.)
        #expect(Synthetic.close(try left.apply(to: source).pixel(x: 95, y: 50), Color(red: 255, green: 0, blue: 0), tolerance: 1))
        let right = try parse("100x100 position=right")
        #expect(Synthetic.close(try right.apply(to: source).pixel(x: 4, y: 50), Color(red: 0, green: 0, blue: 255), tolerance: 1))
        // A content offset in scaled pixels, clamped: 30px at ×0.5 is 60 picture pixels.
        #expect(try parse("100x100 position=30px,0px").layout(for: source.size).window == Region(x: 60, y: 0, width: 200, height: 200))
        #expect(try parse("100x100 position=900px,0px").layout(for: source.size).window.x == 200)
    }

    @Test func containLetterboxesOntoTheBackground() throws {
        let source = try Synthetic.image(200, 100) { _, _ in Color(red: 255, green: 0, blue: 0) }
        let stage = try parse("100x101 fit=contain background=white")
        let layout = stage.layout(for: source.size)
        // 100x50 on 100x101: 51 rows of bars, 25 above (rounded down) and 26 below.
        #expect(layout.scaled == Size(100, 50) && layout.output == Size(100, 101) && layout.origin == Point(0, 25))
        let result = try stage.apply(to: source)
        #expect(result.size == Size(100, 101) && !result.hasAlpha)
        #expect(result.pixel(x: 50, y: 24) == .white)
        #expect(result.pixel(x: 50, y: 25) == Color(red: 255, green: 0, blue: 0))
        #expect(result.pixel(x: 50, y: 74) == Color(red: 255, green: 0, blue: 0))
        #expect(result.pixel(x: 50, y: 75) == .white)
        #expect(try parse("100x100 fit=contain background=transparent").apply(to: source).hasAlpha)
        #expect(try parse("100x100 fit=contain position=top").layout(for: source.size).origin == Point(0, 0))
        #expect(try parse("100x100 fit=contain position=bottom").layout(for: source.size).origin == Point(0, 50))
    }

    @Test func fillInsideOutside() throws {
        #expect(try parse("30x70 fit=fill").outputSize(for: Size(200, 100)) == Size(30, 70))
        #expect(try parse("100x100 fit=inside").outputSize(for: Size(200, 100)) == Size(100, 50))
        #expect(try parse("100x100 fit=outside").outputSize(for: Size(200, 100)) == Size(200, 100))
        #expect(try parse("101x101 fit=inside").outputSize(for: Size(200, 99)) == Size(101, 50))
        #expect(try parse("101x101 fit=outside").outputSize(for: Size(200, 99)) == Size(204, 101))
        let stretched = try parse("30x70 fit=fill").apply(to: Synthetic.gradient(200, 100))
        #expect(stretched.size == Size(30, 70))
    }

    @Test func withoutEnlargement() throws {
        let small = Size(50, 40)
        #expect(try parse("100x100 fit=cover upscale=false").outputSize(for: small) == small) // cover cuts at most WxH
        #expect(try parse("30x100 fit=cover upscale=false").outputSize(for: small) == Size(30, 40))
        #expect(try parse("100x100 fit=inside upscale=false").outputSize(for: small) == small)
        #expect(try parse("100x upscale=false").outputSize(for: small) == small)
        #expect(try parse("100x20 fit=fill upscale=false").outputSize(for: small) == Size(50, 20))
        let contain = try parse("100x100 fit=contain upscale=false")
        #expect(contain.layout(for: small).output == Size(100, 100) && contain.layout(for: small).origin == Point(25, 30))
        // An untouched picture is the same pixels.
        let source = try Synthetic.image(50, 40, pattern)
        let same = try parse("100x100 upscale=false").apply(to: source)
        #expect(same.pixel(x: 49, y: 39) == source.pixel(x: 49, y: 39))
    }

    @Test func smartPositionsFindTheObject() throws {
        let object = Rect(x: 230, y: 35, width: 40, height: 30)
        let source = try Synthetic.objectOnFlat(301, 100, object: object)
        for strategy in ["attention", "entropy"] {
            let stage = try parse("100x100 position=\(strategy)")
            #expect(stage.explanation(for: source.size)!.contains("chosen after decoding (\(strategy))"))
            let result = try stage.apply(to: source)
            #expect(result.size == Size(100, 100))
            // At scale 1 the window is a plain crop: the object's pixels are all there, somewhere.
            let flat = Color(red: 90, green: 100, blue: 110)
            var busy = 0
            for y in 0..<100 { for x in 0..<100 where result.pixel(x: x, y: y) != flat { busy += 1 } }
            #expect(busy == object.width * object.height, "\(strategy): \(busy) object pixels")
        }
        // Shrunk ×0.5 the object still lands inside.
        let shrunk = try parse("60x50 position=attention").apply(to: source)
        #expect(shrunk.size == Size(60, 50))
        var busy = 0
        for y in 0..<50 {
            for x in 0..<60 where !Synthetic.close(shrunk.pixel(x: x, y: y), Color(red: 90, green: 100, blue: 110), tolerance: 30) { busy += 1 }
        }
        #expect(busy >= 20 * 15 * 8 / 10, "\(busy) object pixels of about 300")
        #expect(throws: ArgumentError.self) { try parse("100x100 fit=contain position=attention") }
        #expect(throws: ArgumentError.self) { try parse("100x position=entropy") }
    }

    @Test func reducedDecodeGivesTheSamePicture() throws {
        // A decode at half size standing for the full picture, mapped exactly.
        let full = try Synthetic.gradient(400, 300)
        let half = try full.scaled(to: Size(200, 150))
        let reduced = ReducedImage(image: half, fullSize: full.size, mapping: PixelMapping(scaleX: 0.5, scaleY: 0.5))
        for text in ["100x100", "100x100 fit=contain", "90x fit=inside", "50x70 fit=fill", "33%"] {
            let stage = try parse(text)
            #expect(try stage.shrinkOnLoad?.reducedInput(for: full.size) != nil, "\(text)")
            let a = try stage.apply(to: full), b = try stage.apply(to: reduced)
            #expect(a.size == b.size)
            var largest = 0
            for y in 0..<a.height {
                for x in 0..<a.width {
                    let p = a.pixel(x: x, y: y), q = b.pixel(x: x, y: y)
                    largest = max(largest, abs(Int(p.red) - Int(q.red)), abs(Int(p.green) - Int(q.green)))
                }
            }
            #expect(largest <= 3, "\(text): differs by \(largest)")
        }
        #expect(try parse("800x").shrinkOnLoad?.reducedInput(for: full.size) == nil)
        #expect(try parse("400x300").shrinkOnLoad?.reducedInput(for: full.size) == nil)
    }

    @Test func explanationsSayTheScaleAndTheWindow() throws {
        #expect(try parse("100x100").explanation(for: Size(400, 200)) == "scale ×0.25 (inside)")
        #expect(try parse("100x100 fit=cover").explanation(for: Size(400, 200)) == "scale ×0.5; cover: window 200x200 at 100,0, cut and scaled in one pass")
        #expect(try parse("100x100 fit=contain").explanation(for: Size(400, 200)) == "scale ×0.25 to 100x50, placed at 0,25 on a 100x100 black canvas")
        #expect(try parse("200x").explanation(for: Size(400, 200)) == "scale ×0.5 (aspect kept)")
        #expect(try parse("100x200 fit=fill").explanation(for: Size(400, 200)) == "scale ×0.25 across, ×1 down (fill)")
    }

    @Test func canonicalText() throws {
        for text in ["resize 640x", "resize x480", "resize 50%", "resize 50%x25%", "resize 640x50%",
                     "resize 640x480 fit=contain position=top background=white",
                     "resize 300x300 position=attention kernel=cubic linear=true", "resize 10x10 position=0.25,1 upscale=false",
                     "resize 10x10 position=5px,6px"] {
            let stage = try parse(String(text.dropFirst("resize ".count)))
            #expect(stage.text == text)
            #expect(try parse(String(stage.text.dropFirst("resize ".count))) == stage)
        }
        #expect(try parse("50%x50%").text == "resize 50%")
        // The compass names of ImageMagick and sharp read as the anchors they mean.
        #expect(try parse("10x10 position=northeast").text == "resize 10x10 position=top-right")
        #expect(try parse("10x10 position=south-west") == parse("10x10 position=bottom-left"))
    }

    @Test func badSizesSayWhatIsAllowed() throws {
        for (text, reason) in [("x", "expected a size"),
                               ("0x10", "from 1 to 100000"), ("0%", "above 0%"), ("axb", "expected a size"), ("1x2x3", "expected a size")] {
            do {
                _ = try parse(text)
                Issue.record("\(text) was accepted")
            } catch let error as ArgumentError {
                #expect(error.message.hasPrefix("resize: invalid size '\(text)'"), "\(error.message)")
                #expect(error.message.contains(reason), "\(error.message)")
            }
        }
    }
}
