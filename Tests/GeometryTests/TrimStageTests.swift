import Testing
import ImagePipe
import Geometry
import TestSupport

@Suite struct TrimStageTests {
    private let red = Color(red: 255, green: 0, blue: 0)

    @Test func trimsAUniformBorder() throws {
        for size in [Size(21, 15), Size(22, 16)] {
            let source = try Synthetic.image(size.width, size.height) { x, y in
                (5..<10).contains(x) && (3..<12).contains(y) ? Color(red: 255, green: UInt8(x), blue: UInt8(y)) : .white
            }
            let result = try TrimStage().apply(to: source)
            #expect(result.size == Size(5, 9) && !result.hasAlpha)
            #expect(result.pixel(x: 0, y: 0) == source.pixel(x: 5, y: 3))
            #expect(result.pixel(x: 4, y: 8) == source.pixel(x: 9, y: 11))
        }
    }

    @Test func thresholdFuzzesTheBorder() throws {
        // A border of near-white noise (up to 8 levels off), with one pixel 30 off at (2, 2).
        let source = try Synthetic.image(20, 10) { x, y in
            if (8..<12).contains(x) && (4..<6).contains(y) { return red }
            if x == 2 && y == 2 { return Color(red: 225, green: 255, blue: 255) }
            let noise = UInt8((x * 7 + y * 3) % 9)
            return Color(red: 255 - noise, green: 255, blue: 255 - noise)
        }
        // The lone pixel is noise to the 3×3 median; line art keeps it. The 4×2 block loses
        // its two end columns to the median (4 of 9 neighbors), as under libvips' median.
        #expect(try TrimStage().content(of: source) == Rect(x: 9, y: 4, width: 2, height: 2))
        #expect(try TrimStage(lineArt: true).content(of: source) == Rect(x: 2, y: 2, width: 10, height: 4))
        #expect(try TrimStage(threshold: 40, lineArt: true).content(of: source) == Rect(x: 8, y: 4, width: 4, height: 2))
        #expect(try TrimStage(threshold: 0).content(of: source) == Rect(x: 0, y: 0, width: 20, height: 10))
    }

    @Test func givenBackgroundAndAllBorder() throws {
        // The top-left pixel is part of the content; the border is black.
        let source = try Synthetic.image(9, 9) { x, y in x < 3 && y < 3 ? red : .black }
        #expect(try TrimStage().content(of: source) == Rect(x: 0, y: 0, width: 9, height: 9))
        #expect(try TrimStage(background: .black).content(of: source) == Rect(x: 0, y: 0, width: 3, height: 3))
        // Nothing but border: kept whole, as there would be nothing left.
        let flat = try Image.filled(.white, size: Size(5, 4))
        #expect(try TrimStage().apply(to: flat) === flat)
    }

    @Test func transparentBorderOfAnyColour() throws {
        let source = try Synthetic.image(8, 6, alpha: true) { x, y in
            if (3...5).contains(x) && (2...4).contains(y) { return red }
            return Color(red: UInt8(x * 30), green: UInt8(y * 40), blue: 9, alpha: 0)
        }
        let result = try TrimStage().apply(to: source)
        #expect(result.size == Size(3, 3) && result.hasAlpha && result.pixel(x: 0, y: 0) == red)
    }

    @Test func theSizeIsAnUpperBoundInThePlan() throws {
        let stage = TrimStage()
        #expect(stage.outputSizeIsUpperBound && stage.sizeIsUpperBound)
        #expect(stage.outputSize(for: Size(20, 10)) == Size(20, 10))
        #expect(stage.explanation(for: Size(20, 10))!.hasPrefix("at most 20x10"))
        // A pipeline that trims and goes on: the run checks the trim against its bound and the
        // next stage against the real size.
        let source = try Synthetic.image(20, 10) { x, y in (8..<12).contains(x) && (4..<7).contains(y) ? red : .white }
        let pipeline = Pipeline(transforms: [TrimStage(), ExtendStage(top: 1, right: 1, bottom: 1, left: 1, color: .white)])
        let plan = try pipeline.plan(sourceSize: source.size)
        #expect(!plan.isExact && plan.firstUpperBoundStep == 0 && plan.outputSize == Size(22, 12))
        #expect(try pipeline.apply(to: source).size == Size(6, 5))
    }

    @Test func canonicalText() throws {
        #expect(TrimStage().text == "trim")
        #expect(TrimStage(threshold: 0, background: .white).text == "trim threshold=0 background=white")
        #expect(try TrimStage.parse([RawArgument(key: "background", "auto")]) == TrimStage())
        #expect(try TrimStage.parse([RawArgument(key: "background", "#102030")]) == TrimStage(background: Color(red: 16, green: 32, blue: 48)))
        #expect(throws: ArgumentError.self) { try TrimStage.parse([RawArgument(key: "threshold", "256")]) }
    }
}
