import Testing
import ImagePipe
import CircleCrop
import TestSupport

@Suite struct CircleCropStageTests {
    /// Four quadrants: red, green / blue, white.
    private func quadrants(_ width: Int, _ height: Int, alpha: UInt8 = 255) throws -> Image {
        try Synthetic.image(width, height, alpha: alpha != 255) { x, y in
            switch (x < width / 2, y < height / 2) {
            case (true, true): Color(red: 255, green: 0, blue: 0, alpha: alpha)
            case (false, true): Color(red: 0, green: 255, blue: 0, alpha: alpha)
            case (true, false): Color(red: 0, green: 0, blue: 255, alpha: alpha)
            case (false, false): Color(red: 255, green: 255, blue: 255, alpha: alpha)
            }
        }
    }

    @Test func largestCentredCircle() throws {
        let source = try Synthetic.gradient(81, 60)
        let stage = try CircleCropStage()
        let result = try stage.apply(to: source)
        #expect(result.size == Size(60, 60))
        #expect(result.hasAlpha)
        // Corners are transparent and stored as 0,0,0,0; the middle is the picture's middle.
        for (x, y) in [(0, 0), (59, 0), (0, 59), (59, 59), (5, 5)] {
            #expect(result.pixel(x: x, y: y) == .transparent)
        }
        let middle = result.pixel(x: 30, y: 30)
        #expect(middle.alpha == 255)
        #expect(Synthetic.close(middle, source.pixel(x: 40, y: 30), tolerance: 4))
        // The edge is anti-aliased: along the diagonal, alpha climbs from 0 through partial values.
        let edge = (0..<15).map { result.pixel(x: $0, y: $0).alpha }
        #expect(edge.first == 0 && edge.last == 255)
        #expect(edge.contains { $0 > 0 && $0 < 255 }, "\(edge)")
    }

    /// Every pixel's alpha is the area of the circle inside it: 255 wholly inside, transparent
    /// wholly outside, and on the edge within 2 levels of the area measured by sampling the
    /// pixel 64×64 times.
    @Test func property_everyPixelMatchesTheCircle() throws {
        var random = SeededGenerator(seed: 2000)
        for _ in 0..<12 {
            let size = random.size(1...40)
            let result = try CircleCropStage().apply(to: Synthetic.gradient(size.width, size.height))
            let side = min(size.width, size.height)
            #expect(result.size == Size(side, side))
            let r = Double(side) / 2
            for y in 0..<side {
                for x in 0..<side {
                    let x0 = Double(x) - r, y0 = Double(y) - r
                    let far = max(x0 * x0, (x0 + 1) * (x0 + 1)) + max(y0 * y0, (y0 + 1) * (y0 + 1))
                    let nx = x0 > 0 ? x0 : x0 + 1 < 0 ? x0 + 1 : 0, ny = y0 > 0 ? y0 : y0 + 1 < 0 ? y0 + 1 : 0
                    let pixel = result.pixel(x: x, y: y)
                    if far <= r * r { #expect(pixel.alpha == 255, "\(size) \(x),\(y)"); continue }
                    if nx * nx + ny * ny >= r * r { #expect(pixel == .transparent, "\(size) \(x),\(y)"); continue }
                    var inside = 0
                    for sy in 0..<64 {
                        for sx in 0..<64 {
                            let px = x0 + (Double(sx) + 0.5) / 64, py = y0 + (Double(sy) + 0.5) / 64
                            if px * px + py * py <= r * r { inside += 1 }
                        }
                    }
                    #expect(abs(Double(pixel.alpha) - Double(inside) / 4096 * 255) <= 2, "\(size) \(x),\(y): \(pixel.alpha) for \(inside)/4096")
                }
            }
        }
    }

    @Test func sizeScalesTheAvatar() throws {
        let result = try CircleCropStage(size: 64).apply(to: quadrants(300, 200))
        #expect(result.size == Size(64, 64))
        #expect(Synthetic.close(result.pixel(x: 20, y: 20), Color(red: 255, green: 0, blue: 0), tolerance: 2))
        #expect(Synthetic.close(result.pixel(x: 44, y: 44), .white, tolerance: 2))
    }

    @Test func rgbaInputKeepsItsTransparencyInside() throws {
        let result = try CircleCropStage().apply(to: quadrants(40, 40, alpha: 100))
        #expect(result.pixel(x: 10, y: 20).alpha == 100)
        #expect(result.pixel(x: 0, y: 0) == .transparent)
    }

    @Test func editorStateChoosesTheCircle() throws {
        // A 375x667 editor, picture 1000x1000: zmin = 375/1000. At zoom 2 the circle covers a
        // 500x500 image square; an offset far to the top-left bounces back to the corner.
        let source = try quadrants(1000, 1000)
        let stage = try CircleCropStage(viewport: Size(375, 667), zoom: 2, offset: Point(-1000, -1000))
        let circle = try stage.circle(in: source.size)
        #expect(abs(circle.radius - 250) < 1e-9)
        #expect(abs(circle.center.x - 250) < 1e-9 && abs(circle.center.y - 250) < 1e-9)
        let avatar = try stage.apply(to: source)
        #expect(avatar.size == Size(500, 500))
        #expect(Synthetic.close(avatar.pixel(x: 250, y: 250), Color(red: 255, green: 0, blue: 0), tolerance: 2))
        // Centred by default: the four quadrants meet in the middle.
        let centred = try CircleCropStage(size: 100, viewport: Size(375, 667)).apply(to: source)
        #expect(Synthetic.close(centred.pixel(x: 25, y: 25), Color(red: 255, green: 0, blue: 0), tolerance: 2))
        #expect(Synthetic.close(centred.pixel(x: 75, y: 75), .white, tolerance: 2))
    }

    @Test func editorStateNeedsAViewport() throws {
        let error = try? #require(throws: ArgumentError.self) { try CircleCropStage.parse([RawArgument(key: "zoom", "2")]) }
        #expect(error?.message == "circle-crop: zoom is part of the editor's state; give viewport=WxH too")
        #expect(throws: ArgumentError.self) { try CircleCropStage.parse([RawArgument(key: "viewport", "100x100"), RawArgument(key: "gap", "100")]) }
        #expect(throws: ArgumentError.self) { try CircleCropStage.parse([RawArgument(key: "size", "0")]) }
        #expect(try CircleCropStage.parse([RawArgument(key: "size", "auto")]) == (try CircleCropStage()))
    }

    @Test func gapThatLeavesNoCircleIsAPlanError() throws {
        #expect(throws: StageError.self) { try CircleCropStage(gap: 50).outputSize(for: Size(40, 80)) }
    }
}

@Suite struct CircleMaskStageTests {
    @Test func evenOddFillOutsideOnly() throws {
        let source = try Synthetic.image(41, 31) { _, _ in Color(red: 200, green: 100, blue: 50) }
        let result = try CircleMaskStage().apply(to: source)
        #expect(!result.hasAlpha)
        // Inside untouched, outside dimmed by black at alpha 0x59 (0.35).
        #expect(result.pixel(x: 20, y: 15) == source.pixel(x: 20, y: 15))
        let keep = 1 - 89.0 / 255
        #expect(Synthetic.close(result.pixel(x: 0, y: 0), Color(red: UInt8((200 * keep).rounded()), green: UInt8((100 * keep).rounded()), blue: UInt8((50 * keep).rounded())), tolerance: 1))
    }

    @Test func transparentFillCutsTheOutsideAway() throws {
        let result = try CircleMaskStage(fill: .transparent).apply(to: Synthetic.gradient(30, 20))
        #expect(result.hasAlpha)
        #expect(result.pixel(x: 0, y: 0) == .transparent)
        #expect(result.pixel(x: 15, y: 10).alpha == 255)
    }

    @Test func dashedRingStartsAtTheRightmostPoint() throws {
        let source = try Synthetic.image(101, 101) { _, _ in .black }
        let result = try CircleMaskStage(fill: .transparent, drawsRing: true).apply(to: source)
        // Radius 50.5 around (50.5, 50.5): the ring's first dash covers arc 0…4 going clockwise
        // (downwards on screen) from the rightmost point; the gap follows at arc 4…8. Pixel
        // (100, 51) sits on the line at arc 1, pixel (100, 56) on the line at arc 6.
        #expect(result.pixel(x: 100, y: 51).red > 200, "\(result.pixel(x: 100, y: 51))")
        #expect(result.pixel(x: 100, y: 56).red < 30, "\(result.pixel(x: 100, y: 56))")
        let solid = try CircleMaskStage(fill: .transparent, drawsRing: true, ring: DashedRing(dash: [1, 0])).apply(to: source)
        #expect(solid.pixel(x: 100, y: 56).red > 200)
    }

    @Test func diameterAndGap() throws {
        #expect(try CircleMaskStage(gap: 10).circleDiameter(for: Size(50, 40)) == 30)
        #expect(try CircleMaskStage(diameter: 12).circleDiameter(for: Size(50, 40)) == 12)
        #expect(throws: StageError.self) { try CircleMaskStage(gap: 40).outputSize(for: Size(50, 40)) }
    }

    @Test func canonicalText() throws {
        #expect(CircleMaskStage().text == "circle-mask")
        let text = CircleMaskStage(gap: 4, fill: .transparent, drawsRing: true, ring: DashedRing(color: .black, width: 3, dash: [6, 2])).text
        #expect(text == "circle-mask gap=4 fill=transparent ring=true ring-color=black ring-width=3 dash=6,2")
    }
}

@Suite struct CropEditorStageTests {
    @Test func rendersTheScreen() throws {
        let source = try Synthetic.image(200, 100) { _, _ in Color(red: 200, green: 200, blue: 200) }
        let stage = try CropEditorStage(viewport: Size(100, 160), gap: 10)
        let screen = try stage.apply(to: source)
        #expect(screen.size == Size(100, 160))
        #expect(!screen.hasAlpha)
        // First display: zoom 100/100 = 1 → the 200x100 picture, centred: bars above and below.
        #expect(screen.pixel(x: 50, y: 5) == .black)
        // Inside the circle: the picture untouched; outside it but on the picture: dimmed.
        #expect(screen.pixel(x: 50, y: 80) == Color(red: 200, green: 200, blue: 200))
        #expect(Synthetic.close(screen.pixel(x: 1, y: 40), Color(red: 130, green: 130, blue: 130), tolerance: 1))
    }

    @Test func relayoutAfterRotation() throws {
        let stage = try CropEditorStage(viewport: Size(667, 375), zoom: 1.5, rotatedFrom: Size(375, 667))
        let (model, state) = stage.layout(for: Size(1280, 800))
        #expect(model.viewport == Size(667, 375))
        #expect(model.diameter == 375)
        #expect(abs(state.zoom - 1.5 * 375 / 800) < 1e-12)
        // The portrait offset was centred for 375 wide; it is kept where it still covers the circle.
        let portrait = CropViewport(viewport: Size(375, 667), imageSize: Size(1280, 800))
        let before = portrait.clamp(zoom: 1.5 * portrait.minimumZoom, offset: nil)
        #expect(state.offset.x == before.offset.x)
        #expect(state.offset.y == min(max(before.offset.y, model.offsetRange(zoom: state.zoom).y.lowerBound), model.offsetRange(zoom: state.zoom).y.upperBound))
        #expect(try stage.apply(to: Synthetic.gradient(128, 80)).size == Size(667, 375))
    }
}

@Suite struct CircleCropPositionTests {
    @Test func anchorsPlaceTheLargestCircle() throws {
        let stage = try CircleCropStage.parse([RawArgument(key: "position", "left")])
        let (center, radius) = try stage.circle(in: Size(301, 100))
        #expect(center == Point(50, 50) && radius == 50)
        let right = try CircleCropStage.parse([RawArgument(key: "position", "bottom-right")])
        #expect(try right.circle(in: Size(100, 301)).center == Point(50, 251))
        #expect(try CircleCropStage.parse([RawArgument(key: "position", "10px,0px")]).circle(in: Size(301, 100)).center == Point(60, 50))
        #expect(try CircleCropStage.parse([RawArgument(key: "position", "900px,0px")]).circle(in: Size(301, 100)).center == Point(251, 50))
        #expect(stage.text == "circle-crop position=left")
        #expect(throws: ArgumentError.self) {
            try CircleCropStage.parse([RawArgument(key: "viewport", "300x300"), RawArgument(key: "position", "attention")])
        }
    }

    @Test(arguments: ["attention", "entropy"])
    func smartPositionsFindTheObject(strategy: String) throws {
        let object = Rect(x: 230, y: 35, width: 30, height: 30)
        let source = try Synthetic.objectOnFlat(301, 100, object: object)
        let stage = try CircleCropStage.parse([RawArgument(key: "position", strategy)])
        #expect(try stage.explanation(for: source.size)?.contains("chosen after decoding (\(strategy))") == true)
        let result = try stage.apply(to: source)
        #expect(result.size == Size(100, 100))
        // The object's middle is inside the circle, and opaque there.
        var busy = 0
        for y in 0..<100 {
            for x in 0..<100 {
                let p = result.pixel(x: x, y: y)
                if p.alpha == 255 && p != Color(red: 90, green: 100, blue: 110) { busy += 1 }
            }
        }
        #expect(busy >= object.width * object.height * 9 / 10, "\(busy)")
    }
}
