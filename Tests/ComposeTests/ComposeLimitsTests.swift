import Testing
import ImagePipe
import Compose
import TestSupport

/// What `text` and `composite` may cost: text past `TextLimits` is refused before Pango sees
/// it, a caption's size is measured without drawing it, and the overlay cache keeps at most its
/// byte bound. Against DejaVu, as `TextStageTests`.
@Suite struct ComposeLimitsTests {
    /// The message of the refusal of `text` written as the stage's text argument, or nil when
    /// it is accepted.
    private func refusal(_ text: String, _ more: [String] = []) -> String? {
        do {
            _ = try StageTextParsing.parse(TextStage.self, [text] + more)
            return nil
        } catch let error as ArgumentError {
            return error.target == .parameter("text") ? error.message : "another target: \(error)"
        } catch {
            return "another error: \(error)"
        }
    }

    @Test func eightyThousandCombiningMarksAreRefusedBeforePango() throws {
        let marks = "a" + String(repeating: "\u{301}", count: 80_000)
        let message = try #require(refusal(marks))
        #expect(message == "text: the text is 160001 bytes of UTF-8, more than the largest, 65536; a caption is far shorter (draw a long text as several captions)")
        // A stage made in code never reached check(): the renderer refuses it too.
        #expect(throws: StageError.self) { try TextStage(marks).measure() }
        #expect(throws: StageError.self) { try TextStage(marks).draw() }
    }

    @Test func marksAndCodePointsAreCountedPerCharacter() throws {
        // Sixteen marks on a letter are allowed, seventeen are not, wherever the letter is.
        #expect(refusal("x" + String(repeating: "\u{301}", count: 16)) == nil)
        let seventeen = "ab" + "e" + String(repeating: "\u{20DD}", count: 17) // enclosing marks (Me)
        #expect(refusal(seventeen) == "text: character 3 of the text carries 17 combining marks, more than the largest, 16 (scripts stack a few; Unicode's stream-safe text allows 30)")
        // Joiners are no marks, but a character of 41 code points is refused all the same.
        let joined = "a" + String(repeating: "\u{200D}", count: 40)
        #expect(refusal(joined) == "text: character 1 of the text is 41 code points long, more than the largest, 32")
        // Real clusters pass: Devanagari, an emoji family with skin tones, Vietnamese.
        #expect(refusal("क्षत्रिय 👨🏽‍👩🏽‍👧🏽‍👦🏽 Tiếng Việt") == nil)
    }

    @Test func longTextAndManyLinesAreRefused() throws {
        #expect(refusal(String(repeating: "x", count: TextLimits.maxCharacters)) == nil)
        #expect(refusal(String(repeating: "x", count: TextLimits.maxCharacters + 1))
                == "text: the text is more than 10000 characters long, the largest; a caption is far shorter (draw a long text as several captions)")
        #expect(refusal(String(repeating: "x\n", count: TextLimits.maxLines)) == "text: the text has more than 1000 lines, the largest")
    }

    @Test func sevenHundredKilobytesOfBidiTextAreRefused() throws {
        // Hebrew and Latin words alternating: every run reordered.
        var text = ""
        while text.utf8.count < 700_000 { text += "שלום world " }
        let message = try #require(refusal(text))
        #expect(message.hasPrefix("text: the text is \(text.utf8.count) bytes of UTF-8, more than the largest, 65536"), "\(message)")
        // Within the limits, the same mix is drawn.
        var short = ""
        while short.count < 2_000 { short += "שלום world " }
        #expect(try TextStage(short, font: "DejaVu Sans 8", width: 400).measure().pixelCount > 0)
    }

    @Test func theMeasuredSizeIsTheDrawnSize() throws {
        for stage in [TextStage("Hello", font: "DejaVu Sans 20"), TextStage("Two\nlines, wrapped at forty", font: "DejaVu Serif Italic 13", width: 40),
                      TextStage("")] {
            let measured = try stage.measure()
            let drawn = try stage.draw()
            #expect(measured == (drawn?.size ?? Size(0, 0)), "\(stage.text)")
            #expect(try stage.heldBytes(for: Size(10, 10)) == 8 * measured.pixelCount)
        }
    }

    @Test func aHugeCaptionIsRefusedByThePixelLimitBeforeItIsDrawn() throws {
        let stage = TextStage("Hello", font: "DejaVu Sans 2000")
        let size = try stage.measure()
        #expect(size.width > 4000 && size.height > 2000, "\(size)")
        let pipeline = Pipeline(transforms: [stage])
        // Under a pixel limit it passes, the plan refuses it: nothing was drawn.
        do {
            _ = try StageContext(maxPixels: 1_000_000).bound { try pipeline.plan(sourceSize: Size(10, 10)) }
            Issue.record("a caption past the pixel limit was planned")
        } catch {
            #expect("\(error)".contains("the text would be a \(size) picture (\(size.pixelCount) pixels), more than the limit of 1000000"), "\(error)")
        }
        // Without one, the plan counts it: more than a 10x10 picture's run by far.
        let plan = try pipeline.plan(sourceSize: Size(10, 10))
        #expect(plan.steps[0].held == 8 * size.pixelCount)
        #expect(plan.estimatedPeakBytes() > Plan.workingBytes + 8 * size.pixelCount)
        #expect(plan.largestHolder?.stage.stageSchema.name == "text")
    }

    /// A flat RGBA picture of `side`×`side`, as a PNG file.
    private func overlay(_ side: Int, in directory: TemporaryDirectory, _ name: String) throws -> String {
        try directory.write(Image.filled(Color(red: 200, green: 10, blue: 10, alpha: 128), size: Size(side, side)).encoded(as: .png), to: name)
    }

    @Test func theOverlayCacheKeepsAtMostItsBytesDroppingTheLeastRecentlyUsed() throws {
        let directory = try TemporaryDirectory()
        // 300x300 RGBA: 360,000 bytes each; the cache has room for two.
        let cache = OverlayCache(byteCapacity: 800_000)
        let a = try overlay(300, in: directory, "a.png"), b = try overlay(300, in: directory, "b.png"), c = try overlay(300, in: directory, "c.png")
        _ = try cache.image(at: a, options: LoadOptions())
        _ = try cache.image(at: b, options: LoadOptions())
        _ = try cache.image(at: a, options: LoadOptions()) // a is now more recent than b
        #expect(cache.keptBytes == 720_000)
        _ = try cache.image(at: c, options: LoadOptions())
        #expect(cache.keptBytes == 720_000)
        _ = try cache.image(at: a, options: LoadOptions())
        _ = try cache.image(at: b, options: LoadOptions())
        #expect(cache.decodeCount(of: a) == 1 && cache.decodeCount(of: b) == 2 && cache.decodeCount(of: c) == 1)
        // Scalings count too: one more copy of a's, laid at 200x200, pushes out the least recent.
        _ = try cache.image(at: a, options: LoadOptions(), kernel: nil, linearLight: false) { _ in Size(200, 200) }
        #expect(cache.keptBytes <= 800_000)
        // An overlay larger than the whole bound is used, and not kept.
        let huge = try overlay(500, in: directory, "huge.png")
        #expect(try cache.image(at: huge, options: LoadOptions()).size == Size(500, 500))
        #expect(cache.keptBytes <= 800_000)
        _ = try cache.image(at: huge, options: LoadOptions())
        #expect(cache.decodeCount(of: huge) == 2)
        // Its header's size is still known without a decode.
        #expect(try cache.size(of: huge, options: LoadOptions()) == Size(500, 500) && cache.decodeCount(of: huge) == 2)
    }

    @Test func compositeCountsItsOverlayAndItsScaledCopy() throws {
        let directory = try TemporaryDirectory()
        let path = try overlay(400, in: directory, "logo.png")
        // Fitted inside a 100x50 picture: 50x50.
        #expect(try CompositeStage(overlay: path).heldBytes(for: Size(100, 50)) == 4 * (400 * 400 + 50 * 50))
        // Laid as it is: the decode alone.
        #expect(try CompositeStage(overlay: path).heldBytes(for: Size(1000, 1000)) == 4 * 400 * 400)
        let plan = try Pipeline(transforms: [CompositeStage(overlay: path), CompositeStage(overlay: path, scale: 0.5)]).plan(sourceSize: Size(1000, 1000))
        #expect(plan.steps.map(\.held) == [4 * 400 * 400, 4 * (400 * 400 + 500 * 500)])
        // The decode, the second step's input and output with what it holds, the encoder's two copies.
        #expect(plan.estimatedPeakBytes() == 4 * (1000 * 1000 + 2 * 1000 * 1000 + 400 * 400 + 500 * 500 + 2 * 1000 * 1000) + Plan.workingBytes)
    }
}
