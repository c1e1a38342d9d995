import Testing
import ImagePipe
import Compose
import TestSupport

/// Against DejaVu, which `make test` installs (fonts-dejavu-core).
@Suite struct TextStageTests {
    private func black(_ width: Int, _ height: Int, alpha: Bool = false) throws -> Image {
        try Synthetic.image(width, height, alpha: alpha) { _, _ in alpha ? .transparent : .black }
    }

    /// The bounding box of pixels that are not black (or, with alpha, not transparent).
    private func ink(_ image: Image) -> (minX: Int, minY: Int, maxX: Int, maxY: Int)? {
        var box: (Int, Int, Int, Int)?
        for y in 0..<image.height {
            for x in 0..<image.width {
                let p = image.pixel(x: x, y: y)
                guard image.hasAlpha ? p.alpha > 0 : (p.red > 0 || p.green > 0 || p.blue > 0) else { continue }
                box = box.map { (min($0.0, x), min($0.1, y), max($0.2, x), max($0.3, y)) } ?? (x, y, x, y)
            }
        }
        return box.map { (minX: $0.0, minY: $0.1, maxX: $0.2, maxY: $0.3) }
    }

    @Test func anInstalledFamilyResolvesAndAGenericOneFallsBack() throws {
        #expect(try TextRenderer.resolve("DejaVu Sans 24").get() == TextRenderer.Font(family: "DejaVu Sans", pixels: 24))
        #expect(try TextRenderer.resolve("DejaVu Serif Bold 12.5").get().pixels == 12.5)
        #expect((try? TextRenderer.resolve("Sans 24").get()) != nil)
        #expect((try? TextRenderer.resolve("monospace 10").get()) != nil)
    }

    @Test func aMissingFamilyIsRefusedNamingWhatPangoWouldUse() throws {
        guard case let .failure(error) = TextRenderer.resolve("No Such Typeface 24") else {
            Issue.record("a missing family was accepted")
            return
        }
        #expect(error.message.contains("No Such Typeface") && error.message.contains("instead"), "\(error.message)")
        // At compile time, pointing at the parameter.
        #expect(throws: ArgumentError.self) { try StageTextParsing.parse(TextStage.self, ["hi", "font=No Such Typeface 24"]) }
        do {
            _ = try StageTextParsing.parse(TextStage.self, ["hi", "font=No Such Typeface 24"])
        } catch let error as ArgumentError {
            #expect(error.target == .parameter("font") && error.message.hasPrefix("text: "), "\(error)")
        }
        #expect(throws: ArgumentError.self) { try StageTextParsing.parse(TextStage.self, ["hi", "font=DejaVu Sans"]) } // no size
        #expect(throws: ArgumentError.self) { try StageTextParsing.parse(TextStage.self, ["hi", "font=DejaVu Sans 99999"]) }
    }

    @Test func textIsAntialiasedWhiteOnTheCorner() throws {
        let stage = TextStage("Hello", font: "DejaVu Sans 20", offset: Point(3, 2))
        let base = try black(120, 50)
        let result = try stage.apply(to: base)
        #expect(!result.hasAlpha && result.size == base.size)
        let box = try #require(ink(result))
        let drawn = try #require(try stage.draw())
        // The block's bottom-right corner is 3 px left of and 2 px above the picture's.
        let origin = Gravity.bottomRight.origin(of: drawn.size, on: base.size, offset: Point(3, 2))
        #expect(origin.x + drawn.width == 117 && origin.y + drawn.height == 48)
        #expect(box.minX >= origin.x && box.maxX < 117 && box.minY >= origin.y && box.maxY < 48)
        // About 20 px type: capitals some 14–15 px tall, five letters 50–60 px wide.
        #expect((50...62).contains(box.maxX - box.minX + 1), "\(box)")
        #expect((13...18).contains(box.maxY - box.minY + 1), "\(box)")
        // White ink, fully covered in the strokes; grey levels on the edges (antialiasing).
        var levels = Set<UInt8>()
        for y in box.minY...box.maxY {
            for x in box.minX...box.maxX {
                let p = result.pixel(x: x, y: y)
                #expect(p.red == p.green && p.green == p.blue, "colour fringes at (\(x), \(y)): \(p)")
                levels.insert(p.red)
            }
        }
        #expect(levels.contains(255) && levels.count > 20, "\(levels.count) levels")
    }

    @Test func colourAndOpacityReachTheInk() throws {
        let red = try TextStage("█", font: "DejaVu Sans 30", color: Color(red: 255, green: 0, blue: 0), gravity: .center)
            .apply(to: try black(60, 60))
        #expect(red.pixel(x: 30, y: 30) == Color(red: 255, green: 0, blue: 0))
        let faint = try TextStage("█", font: "DejaVu Sans 30", color: .white, gravity: .center, opacity: 0.5)
            .apply(to: try black(60, 60))
        #expect(Synthetic.close(faint.pixel(x: 30, y: 30), Color(red: 128, green: 128, blue: 128), tolerance: 1))
        // The drawn block itself is straight alpha: full block, colour kept where alpha is partial.
        let drawn = try #require(try TextStage("█", font: "DejaVu Sans 30", color: Color(red: 0, green: 0, blue: 255, alpha: 128)).draw())
        #expect(drawn.hasAlpha)
        let centre = drawn.pixel(x: drawn.width / 2, y: drawn.height / 2)
        #expect(Synthetic.close(centre, Color(red: 0, green: 0, blue: 255, alpha: 128), tolerance: 1), "\(centre)")
    }

    @Test func onATransparentPictureTheTextKeepsItsAlpha() throws {
        let result = try TextStage("█", font: "DejaVu Sans 30", gravity: .center).apply(to: try black(60, 60, alpha: true))
        #expect(result.hasAlpha)
        #expect(result.pixel(x: 30, y: 30) == .white)
        #expect(result.pixel(x: 0, y: 0) == .transparent)
    }

    @Test func widthWrapsAndAlignLinesUp() throws {
        let line = try #require(try TextStage("one two three four", font: "DejaVu Sans 16").draw())
        let wrapped = try #require(try TextStage("one two three four", font: "DejaVu Sans 16", width: 60).draw())
        #expect(wrapped.width <= 60 + 2 && wrapped.height >= 3 * line.height, "\(line.size) → \(wrapped.size)")
        let explicit = try #require(try TextStage("one\ntwo", font: "DejaVu Sans 16").draw())
        #expect(explicit.height >= 2 * line.height - 2)
        // Right alignment: the short second line ends where the long first one does.
        func lastInkColumn(_ image: Image, rows: Range<Int>) -> Int {
            var last = -1
            for y in rows { for x in 0..<image.width where image.pixel(x: x, y: y).alpha > 0 { last = max(last, x) } }
            return last
        }
        let left = try #require(try TextStage("wide line\nab", font: "DejaVu Sans 16").draw())
        let right = try #require(try TextStage("wide line\nab", font: "DejaVu Sans 16", alignment: .right).draw())
        let half = left.height / 2
        #expect(lastInkColumn(right, rows: half..<right.height) > lastInkColumn(left, rows: half..<left.height) + 20)
    }

    @Test func complexScriptsAreShaped() throws {
        // Arabic letters join: the word is narrower shaped than its letters set apart.
        let word = try #require(try TextStage("سلام", font: "DejaVu Sans 24").draw())
        let apart = try #require(try TextStage("س ل ا م", font: "DejaVu Sans 24").draw())
        #expect(word.width < apart.width)
        #expect(ink(word) != nil)
    }

    @Test func emptyTextChangesNothing() throws {
        let base = try Synthetic.gradient(9, 9)
        #expect(try TextStage("").apply(to: base) === base)
    }

    @Test func canonicalTextRoundTrips() throws {
        let stage = try StageTextParsing.parse(TextStage.self, ["two words", "font=DejaVu Sans Bold 30", "color=#ff000080",
                                                                 "gravity=top", "offset=4,5", "opacity=0.5", "width=200", "align=center"])
        #expect(stage.text == #"text "two words" font="DejaVu Sans Bold 30" color=#ff000080 gravity=top offset=4,5 opacity=0.5 width=200 align=center"#)
        #expect(try StageTextParsing.parse(TextStage.self, ["hi"]).text == "text hi")
    }

    /// Every extreme value is either refused with a message that names the stage and the
    /// parameter, or accepted — exactly these: any text at all, opacity 0, width auto — and
    /// then draws on any picture at its size.
    @Test func extremeValuesAreRefusedOrHandled() throws {
        let values = ["0", "-1", "nan", "inf", "1e308", "1e308,1e308", "nan,nan", "", "auto", "true", "\u{0}", "\n\n\n", "  "]
        let accepted: [String: Set<String>] = ["text": Set(values), "opacity": ["0"], "width": ["auto"]]
        for parameter in ["text", "font", "color", "gravity", "offset", "opacity", "width", "align"] {
            for value in values {
                let words = parameter == "text" ? [value] : ["hi", "\(parameter)=\(value)"]
                guard accepted[parameter, default: []].contains(value) else {
                    let error = try #require(throws: ArgumentError.self, "\(parameter)=\(value.debugDescription)") {
                        try StageTextParsing.parse(TextStage.self, words)
                    }
                    #expect(error.message.hasPrefix("text: ") && error.message.contains(parameter), "\(parameter)=\(value.debugDescription): \(error.message)")
                    continue
                }
                let stage = try StageTextParsing.parse(TextStage.self, words)
                for picture in [try Synthetic.gradient(1, 1), try Synthetic.gradient(3, 2, alpha: true), try Synthetic.gradient(17, 31)] {
                    let result = try stage.apply(to: picture)
                    #expect(result.size == picture.size, "\(stage.text)")
                    if parameter == "opacity" || value.allSatisfy(\.isWhitespace) {
                        // Nothing to see: the picture is unchanged.
                        #expect((0..<picture.height).allSatisfy { y in (0..<picture.width).allSatisfy { x in result.pixel(x: x, y: y) == picture.pixel(x: x, y: y) } },
                                "\(stage.text)")
                    }
                }
            }
        }
    }
}

/// Characters no installed font has are named in a warning (Pango would draw them as boxes with
/// their codes, exit 0), with a family fontconfig finds that has them when there is one.
@Suite struct MissingGlyphTests {
    @Test func charactersNoFontHasAreNamed() throws {
        // U+0378 is unassigned: no font has it. Spaces and joiners draw no ink and are never missing.
        let stage = TextStage("Ab\u{378} \u{200D}c", font: "DejaVu Sans 12")
        #expect(TextRenderer.missingCharacters(in: stage.content, font: stage.font) == ["\u{378}"])
        #expect(stage.warnings.count == 1)
        #expect(stage.warnings.first?.hasPrefix("the font 'DejaVu Sans 12' has no glyph for U+0378 (\u{378}), drawn as a box; no installed font has it") == true,
                "\(stage.warnings)")
        #expect(TextStage("Hello, wörld", font: "DejaVu Sans 12").warnings.isEmpty)
    }

    @Test func fontconfigNamesAFamilyThatHasTheCharacters() {
        let family = TextRenderer.family(having: ["é", "ß"])
        #expect(family != nil)
        #expect(TextRenderer.family(having: ["\u{378}"]) == nil)
    }
}
