import Testing
import ImagePipe
import Geometry
import TestSupport

@Suite struct CropStageTests {
    private let pattern = { (x: Int, y: Int) in Color(red: UInt8(x % 256), green: UInt8(y % 256), blue: 7) }

    @Test func pixelCropIsExact() throws {
        for size in [Size(40, 30), Size(41, 31)] {
            let source = try Synthetic.image(size.width, size.height, pattern)
            let stage = try CropStage.parse([RawArgument("3,4,17x9")])
            let result = try stage.apply(to: source)
            #expect(result.size == Size(17, 9) && !result.hasAlpha)
            for (x, y) in [(0, 0), (16, 0), (0, 8), (16, 8), (7, 5)] { #expect(result.pixel(x: x, y: y) == source.pixel(x: 3 + x, y: 4 + y)) }
        }
        let alpha = try CropStage(Rect(x: 1, y: 1, width: 2, height: 1)).apply(to: Synthetic.gradient(3, 2, alpha: true))
        #expect(alpha.hasAlpha && alpha.size == Size(2, 1))
    }

    @Test func percentagesRoundBothEdges() throws {
        let stage = try CropStage.parse([RawArgument("10%,10%,50%x50%")])
        // 101x51: x from round(10.1) = 10 to round(60.6) = 61; y from round(5.1) = 5 to round(30.6) = 31.
        #expect(try stage.pixels(in: Size(101, 51)) == Rect(x: 10, y: 5, width: 51, height: 26))
        // Two halves of an odd width meet without a gap or an overlap.
        let left = try CropStage.parse([RawArgument("0%,0%,50%x100%")]), right = try CropStage.parse([RawArgument("50%,0%,50%x100%")])
        for width in [1, 2, 3, 99, 100, 101] where width > 1 {
            let a = try left.pixels(in: Size(width, 5)), b = try right.pixels(in: Size(width, 5))
            #expect(a.maxX == b.x && b.maxX == width, "\(width): \(a) \(b)")
        }
        #expect(try CropStage.parse([RawArgument("0,0,100%x100%")]).outputSize(for: Size(7, 5)) == Size(7, 5))
        #expect(try CropStage.parse([RawArgument("2,0,50%x5")]).pixels(in: Size(7, 5)) == Rect(x: 2, y: 0, width: 4, height: 5))
    }

    @Test func outsideThePictureIsRefusedAtPlanTime() throws {
        let stage = CropStage(Rect(x: 10, y: 10, width: 300, height: 200))
        #expect(throws: StageError.self) { try stage.outputSize(for: Size(200, 100)) }
        do {
            _ = try stage.outputSize(for: Size(200, 100))
        } catch let error as StageError {
            #expect(error.message == "the rectangle 10,10,300x200 does not lie inside the 200x100 picture: x + width must be at most 200, y + height at most 100, and each side at least 1")
        }
        // A percentage crop that rounds to nothing is refused too, naming its pixels.
        let thin = try CropStage.parse([RawArgument("0,0,10%x10%")])
        do {
            _ = try thin.outputSize(for: Size(4, 4))
            Issue.record("a 0-pixel crop was accepted")
        } catch let error as StageError {
            #expect(error.message.contains("(0,0,0x0 in pixels)"), "\(error.message)")
        }
        #expect(try stage.outputSize(for: Size(310, 210)) == Size(300, 200))
    }

    @Test func canonicalText() throws {
        for text in ["10,20,300x200", "10%,10%,50%x50%", "0,12.5%,100%x7", "0,0,1x1", "300x200", "50%x7", "300x200 position=attention"] {
            #expect(try StageText.roundTrips(CropStage.self, text, canonical: "crop \(text)"))
        }
        for bad in ["10,20", "10,20,0x5", "-1,0,5x5", "0,0,5x0%", "0,0,101%x5", "1.5,0,5x5", "0,0,5x5x5", "a,b,cxd"] {
            #expect(throws: ArgumentError.self, "\(bad)") { try CropStage.parse([RawArgument(bad)]) }
        }
        #expect(throws: ArgumentError.self) { try CropStage.parse([]) }
    }

    /// `crop WxH position=…`: ImageMagick's gravity crop. The rectangle goes to the anchor
    /// (the odd pixel of room right or below), is cut to the picture where larger, and a smart
    /// position finds the busy part after decoding.
    @Test func aSizedRectangleIsPlacedByPosition() throws {
        let source = try Synthetic.image(41, 31, pattern)
        for (position, corner) in [("center", (15, 10)), ("top-left", (0, 0)), ("bottom-right", (30, 20)), ("southeast", (30, 20)),
                                   ("north", (15, 0)), ("0.25,1", (7, 20)), ("3px,4px", (3, 4)), ("100px,0px", (30, 0))] {
            let stage = try StageText.parse(CropStage.self, "11x11 position=\(position)")
            let result = try stage.apply(to: source)
            #expect(result.size == Size(11, 11), "\(position)")
            #expect(result.pixel(x: 0, y: 0) == source.pixel(x: corner.0, y: corner.1), "\(position): \(result.pixel(x: 0, y: 0))")
            #expect(try stage.stageClass == .resample && stage.rearranging?.rearrangement(for: source.size) == .crop(Rect(x: corner.0, y: corner.1, width: 11, height: 11)))
        }
        // Larger than the picture on one side: cut to it, placed on the other.
        let wide = try StageText.parse(CropStage.self, "500x10 position=bottom")
        #expect(try wide.pixels(in: source.size) == Rect(x: 0, y: 21, width: 41, height: 10))
        // Percentages of the picture's sides.
        #expect(try CropStage.parse([RawArgument("50%x50%")]).pixels(in: Size(100, 60)) == Rect(x: 25, y: 15, width: 50, height: 30))
        // Attention finds the busy object in a flat picture; the plan cannot know where.
        let flat = try Synthetic.objectOnFlat(200, 120, object: Rect(x: 150, y: 80, width: 40, height: 30))
        let smart = try StageText.parse(CropStage.self, "60x40 position=attention")
        let cut = try smart.apply(to: flat)
        #expect(try cut.size == Size(60, 40) && smart.stageClass == .whole && smart.rearranging?.rearrangement(for: flat.size) == nil)
        let busy = (0..<60).flatMap { x in (0..<40).map { cut.pixel(x: x, y: $0) } }.filter { $0 != Color(red: 90, green: 100, blue: 110) }.count
        #expect(busy >= 30 * 25, "only \(busy) pixels of the object in the attention crop")
        // A corner and a position together are refused: which one would win?
        #expect(throws: ArgumentError.self) { try StageText.parse(CropStage.self, "1,2,3x4 position=top") }
    }
}
