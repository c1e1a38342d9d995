import Testing
import ImagePipe
import TestSupport

@Suite struct SmartCropTests {
    private func contains(_ window: Region, _ rect: Rect) -> Bool {
        window.x <= Double(rect.x) + 1e-9 && window.y <= Double(rect.y) + 1e-9
            && window.maxX >= Double(rect.maxX) - 1e-9 && window.maxY >= Double(rect.maxY) - 1e-9
    }

    @Test(arguments: SmartCrop.Strategy.allCases)
    func theWindowHoldsTheObject(strategy: SmartCrop.Strategy) throws {
        // Objects in every corner and side, on pictures odd and even, wide and tall.
        let cases: [(Size, Rect, Double, Double)] = [
            (Size(300, 100), Rect(x: 220, y: 30, width: 40, height: 40), 100, 100),
            (Size(301, 101), Rect(x: 10, y: 20, width: 50, height: 50), 101, 101),
            (Size(120, 400), Rect(x: 30, y: 300, width: 60, height: 60), 120, 120),
            (Size(640, 480), Rect(x: 500, y: 20, width: 90, height: 80), 200, 150),
            (Size(999, 333), Rect(x: 450, y: 100, width: 70, height: 90), 250, 180.5),
        ]
        for (size, object, width, height) in cases {
            let picture = try Synthetic.objectOnFlat(size.width, size.height, object: object)
            let whole = Region(x: 0, y: 0, width: Double(size.width), height: Double(size.height))
            let window = try SmartCrop.window(width: width, height: height, in: picture, area: whole, strategy: strategy)
            #expect(window.width == width && window.height == height)
            #expect(window.x >= 0 && window.y >= 0 && window.maxX <= whole.width + 1e-9 && window.maxY <= whole.height + 1e-9)
            #expect(contains(window, object), "\(strategy) on \(size): \(window) misses \(object)")
        }
    }

    @Test func theWindowKeepsTheMostOfWhatScoresNotItsPeak() throws {
        // One red square on the left, and two smaller ones on the right that together score
        // more (longer edges) and fit in one window: the window takes both small ones (centred
        // on the peak, it took the single larger square). The picture is narrower than the
        // analysis copy, so the squares' edges stay sharp: a scaled copy blends them into
        // one-pixel lines of colors found nowhere else, which count as rare.
        let single = Rect(x: 20, y: 42, width: 16, height: 16)
        let pair = [Rect(x: 146, y: 44, width: 12, height: 12), Rect(x: 222, y: 44, width: 12, height: 12)]
        let picture = try Synthetic.image(250, 100) { x, y in
            let inside = ([single] + pair).contains { x >= $0.x && x < $0.maxX && y >= $0.y && y < $0.maxY }
            return inside ? Color(red: 220, green: 30, blue: 30) : Color(red: 90, green: 100, blue: 110)
        }
        let whole = Region(x: 0, y: 0, width: 250, height: 100)
        let window = try SmartCrop.window(width: 100, height: 100, in: picture, area: whole, strategy: .attention)
        #expect(pair.allSatisfy { contains(window, $0) }, "\(window)")
    }

    @Test func aWarmTexturedWallDoesNotOutweighASmallSubject() throws {
        // A portrait: a small white lantern in a blue sky above a wall of orange bricks (the
        // held-out lighthouse photo's trap). The bricks fill half the picture with a skin-like,
        // saturated colour and regular mortar edges; what stands out is the lantern.
        let lantern = Rect(x: 45, y: 30, width: 30, height: 30)
        let picture = try Synthetic.image(120, 360) { x, y in
            if y >= 160 {
                let mortar = y % 10 == 0 || (x + 12 * ((y / 10) % 2)) % 24 == 0
                return mortar ? Color(red: 150, green: 140, blue: 130) : Color(red: 185, green: 105, blue: 75)
            }
            if x >= lantern.x && x < lantern.maxX && y >= lantern.y && y < lantern.maxY {
                return (x - lantern.x) % 10 < 2 ? Color(red: 60, green: 60, blue: 60) : Color(red: 235, green: 235, blue: 230)
            }
            return Color(red: 70, green: 120, blue: 210)
        }
        let whole = Region(x: 0, y: 0, width: 120, height: 360)
        let window = try SmartCrop.window(width: 120, height: 120, in: picture, area: whole, strategy: .attention)
        #expect(contains(window, lantern), "\(window)")
    }

    @Test func aSmallRareColorBeatsAWideTexture() throws {
        // A red kite in a plain blue sky, and a bank of finely textured cloud at the left: the
        // cloud holds more edges in all, but the kite is the one thing of its color.
        let kite = Rect(x: 230, y: 45, width: 8, height: 8)
        let picture = try Synthetic.image(300, 100) { x, y in
            if x < 110 {
                let v = UInt8(180 + 60 * ((x * 7 + y * 13) % 11) / 10)
                return Color(red: v, green: v, blue: v + 10)
            }
            if x >= kite.x && x < kite.maxX && y >= kite.y && y < kite.maxY { return Color(red: 230, green: 40, blue: 30) }
            return Color(red: 40, green: 90, blue: 200)
        }
        let whole = Region(x: 0, y: 0, width: 300, height: 100)
        let window = try SmartCrop.window(width: 100, height: 100, in: picture, area: whole, strategy: .attention)
        #expect(contains(window, kite), "\(window)")
    }

    @Test func transparentPixelsDrawNoAttention() throws {
        // A busy pattern that is fully transparent on the left, a faint object on the right.
        let picture = try Synthetic.image(300, 100, alpha: true) { x, y in
            if x < 100 { return (x + y) % 2 == 0 ? Color(red: 255, green: 0, blue: 0, alpha: 0) : Color(red: 0, green: 255, blue: 0, alpha: 0) }
            if x >= 220 && x < 260 && y >= 30 && y < 70 { return (x / 2 + y / 2) % 2 == 0 ? .white : .black }
            return Color(red: 90, green: 100, blue: 110)
        }
        let whole = Region(x: 0, y: 0, width: 300, height: 100)
        let window = try SmartCrop.window(width: 100, height: 100, in: picture, area: whole, strategy: .attention)
        #expect(contains(window, Rect(x: 220, y: 30, width: 40, height: 40)), "\(window)")
    }

    @Test func aWindowAsLargeAsTheAreaIsTheArea() throws {
        let picture = try Synthetic.gradient(64, 48)
        let area = Region(x: 4, y: 2, width: 50, height: 40)
        for strategy in SmartCrop.Strategy.allCases {
            #expect(try SmartCrop.window(width: 50, height: 40, in: picture, area: area, strategy: strategy) == area)
            #expect(try SmartCrop.window(width: 500, height: 400, in: picture, area: area, strategy: strategy) == area)
        }
    }

    @Test func flatPicturesGiveADeterministicWindowInside() throws {
        let picture = try Image.filled(.white, size: Size(33, 17))
        let whole = Region(x: 0, y: 0, width: 33, height: 17)
        for strategy in SmartCrop.Strategy.allCases {
            let window = try SmartCrop.window(width: 10, height: 10, in: picture, area: whole, strategy: strategy)
            #expect(window == (try SmartCrop.window(width: 10, height: 10, in: picture, area: whole, strategy: strategy)))
            #expect(window.x >= 0 && window.maxX <= 33 && window.y >= 0 && window.maxY <= 17)
        }
    }
}
