import Testing
import ImagePipe
import SquareSlice
import TestSupport

@Suite struct SliceStageTests {
    private let pattern = { (x: Int, y: Int) in Color(red: UInt8(x % 256), green: UInt8(y % 256), blue: UInt8((x / 256) * 16 + y / 256)) }

    @Test func nativeZoomCutsExactPixels() throws {
        // 600x400 into 300x300: zmin = 0.75, zmax = 1; zoom 10 clamps to native size.
        let source = try Synthetic.image(600, 400, pattern)
        let stage = SliceStage(size: Size(300, 300), zoom: 10, offset: .pixels(x: 120, y: 50))
        #expect(stage.window(for: source.size) == Region(x: 120, y: 50, width: 300, height: 300))
        let result = try stage.apply(to: source)
        #expect(result.size == Size(300, 300))
        for (x, y) in [(0, 0), (299, 0), (150, 150), (299, 299)] {
            #expect(result.pixel(x: x, y: y) == source.pixel(x: 120 + x, y: 50 + y))
        }
    }

    @Test func firstDisplayIsCoverCentred() throws {
        let stage = SliceStage()
        #expect(stage.window(for: Size(600, 400)) == Region(x: 100, y: 0, width: 400, height: 400))
        #expect(stage.window(for: Size(400, 600)) == Region(x: 0, y: 100, width: 400, height: 400))
    }

    @Test func smallPictureIsEnlargedJustEnough() throws {
        let stage = SliceStage(size: Size(300, 300), zoom: 4)
        // zmin = 300/50 = 6 > 1, so zmax = zmin and the zoom is off.
        #expect(stage.window(for: Size(100, 50)) == Region(x: 25, y: 0, width: 50, height: 50))
        let result = try stage.apply(to: Synthetic.gradient(100, 50))
        #expect(result.size == Size(300, 300))
    }

    @Test func property_windowStaysOnThePicture() throws {
        var random = SeededGenerator(seed: 1001)
        for _ in 0..<400 {
            let picture = random.size(1...3000), slice = random.size(1...500)
            let anchor: Anchor = Bool.random(using: &random)
                ? .unit(x: Double.random(in: -1...2, using: &random), y: Double.random(in: -1...2, using: &random))
                : .pixels(x: Double.random(in: -4000...4000, using: &random), y: Double.random(in: -4000...4000, using: &random))
            let stage = SliceStage(size: slice, zoom: Double.random(in: 1...10, using: &random), offset: anchor)
            let window = stage.window(for: picture)
            #expect(window.x >= 0 && window.y >= 0 && window.maxX <= Double(picture.width) + 1e-6 && window.maxY <= Double(picture.height) + 1e-6)
            // The window has the slice's aspect: it is the slice divided by one zoom.
            #expect(abs(window.width / window.height - Double(slice.width) / Double(slice.height)) < 1e-9)
        }
    }

    @Test func thinPicturesAndAlpha() throws {
        for size in [Size(1, 1), Size(1, 200), Size(200, 1)] {
            let result = try SliceStage(size: Size(30, 20)).apply(to: Synthetic.gradient(size.width, size.height, alpha: true))
            #expect(result.size == Size(30, 20))
            #expect(result.hasAlpha)
        }
    }

    @Test func canonicalText() throws {
        #expect(SliceStage().text == "slice")
        #expect(SliceStage(size: Size(200, 100), zoom: 2, offset: .pixels(x: 5, y: 6)).text == "slice 200x100 zoom=2 offset=5px,6px")
        #expect(throws: ArgumentError.self) { try SliceStage.parse([RawArgument(key: "zoom", "0.5")]) }
    }
}

@Suite struct SliceSmartCropTests {
    @Test(arguments: ["attention", "entropy"])
    func theSliceHoldsTheObject(strategy: String) throws {
        let object = Rect(x: 40, y: 260, width: 50, height: 40)
        let source = try Synthetic.objectOnFlat(150, 401, object: object)
        let stage = try SliceStage.parse([RawArgument("150x150"), RawArgument(key: "offset", strategy)])
        #expect(stage.text == "slice 150x150 offset=\(strategy)")
        #expect(stage.explanation(for: source.size)?.contains("chosen after decoding (\(strategy))") == true)
        let result = try stage.apply(to: source)
        #expect(result.size == Size(150, 150))
        // At zoom 1 the window is whole pixels of the picture: all of the object is in it.
        var busy = 0
        for y in 0..<150 { for x in 0..<150 where result.pixel(x: x, y: y) != Color(red: 90, green: 100, blue: 110) { busy += 1 } }
        #expect(busy == object.width * object.height, "\(busy)")
    }
}
