import Testing
import ImagePipe
import Geometry
import TestSupport

@Suite struct ExtendStageTests {
    // 3x2: a b c / d e f, each pixel its own colour.
    private func small(alpha: Bool = false) throws -> Image {
        try Synthetic.image(3, 2, alpha: alpha) { x, y in Color(red: UInt8(10 + x), green: UInt8(20 + y), blue: 30, alpha: alpha ? UInt8(100 + x + 3 * y) : 255) }
    }

    private func columns(_ image: Image, row: Int) -> [UInt8] { (0..<image.width).map { image.pixel(x: $0, y: row).red } }
    private func rows(_ image: Image, column: Int) -> [UInt8] { (0..<image.height).map { image.pixel(x: column, y: $0).green } }

    @Test func colorFillsTheNewPixels() throws {
        let stage = ExtendStage(top: 1, right: 2, bottom: 0, left: 1, color: .white)
        let result = try stage.apply(to: small())
        #expect(result.size == Size(6, 3) && stage.outputSize(for: Size(3, 2)) == Size(6, 3) && !result.hasAlpha)
        #expect(result.pixel(x: 0, y: 0) == .white && result.pixel(x: 5, y: 2) == .white && result.pixel(x: 0, y: 1) == .white)
        #expect(result.pixel(x: 1, y: 1) == (try small()).pixel(x: 0, y: 0))
        #expect(result.pixel(x: 3, y: 2) == (try small()).pixel(x: 2, y: 1))
    }

    @Test func transparentColourGivesRGBA() throws {
        let result = try ExtendStage(right: 1, color: .transparent).apply(to: small())
        #expect(result.hasAlpha)
        #expect(result.pixel(x: 3, y: 0) == .transparent)
        #expect(result.pixel(x: 2, y: 0).alpha == 255)
    }

    @Test func copyMirrorRepeat() throws {
        let source = try small()
        // Columns a b c (reds 10 11 12), two added on each side.
        let copy = try ExtendStage(right: 2, left: 2, mode: .copy).apply(to: source)
        #expect(columns(copy, row: 0) == [10, 10, 10, 11, 12, 12, 12])
        let mirror = try ExtendStage(right: 4, left: 4, mode: .mirror).apply(to: source)
        #expect(columns(mirror, row: 0) == [12, 12, 11, 10, 10, 11, 12, 12, 11, 10, 10])
        let tiled = try ExtendStage(right: 2, left: 2, mode: .repeat).apply(to: source)
        #expect(columns(tiled, row: 1) == [11, 12, 10, 11, 12, 10, 11])
        // Rows d, e (greens 20, 21), three added above and below.
        let down = try ExtendStage(top: 3, bottom: 3, mode: .mirror).apply(to: source)
        #expect(rows(down, column: 1) == [21, 21, 20, 20, 21, 21, 20, 20])
        #expect(!copy.hasAlpha && !mirror.hasAlpha && !tiled.hasAlpha)
        // The colour is not used, and RGBA stays RGBA with its alpha copied.
        let rgba = try small(alpha: true)
        let withAlpha = try ExtendStage(right: 1, color: .transparent, mode: .copy).apply(to: rgba)
        #expect(withAlpha.hasAlpha && withAlpha.pixel(x: 3, y: 1) == rgba.pixel(x: 2, y: 1))
        #expect(!(try ExtendStage(right: 1, color: .transparent, mode: .mirror).apply(to: source)).hasAlpha)
    }

    @Test func oddAndEvenSizesAndNothingAdded() throws {
        for size in [Size(1, 1), Size(4, 6), Size(5, 7)] {
            let stage = ExtendStage(top: 2, right: 3, bottom: 4, left: 5, mode: .mirror)
            let source = try Synthetic.gradient(size.width, size.height)
            let result = try stage.apply(to: source)
            #expect(result.size == Size(size.width + 8, size.height + 6))
            #expect(result.pixel(x: 5, y: 2) == source.pixel(x: 0, y: 0))
            #expect(result.pixel(x: 5 + size.width - 1, y: 2 + size.height - 1) == source.pixel(x: size.width - 1, y: size.height - 1))
        }
        let source = try small()
        #expect(try ExtendStage().apply(to: source) === source)
    }

    @Test func canonicalText() throws {
        #expect(ExtendStage().text == "extend")
        #expect(ExtendStage(top: 1, left: 4, color: .white, mode: .mirror).text == "extend top=1 left=4 color=white mode=mirror")
        let parsed = try ExtendStage.parse([RawArgument(key: "bottom", "3"), RawArgument(key: "mode", "repeat")])
        #expect(parsed == ExtendStage(bottom: 3, mode: .repeat))
        #expect(throws: ArgumentError.self) { try ExtendStage.parse([RawArgument(key: "top", "-1")]) }
        #expect(throws: ArgumentError.self) { try ExtendStage.parse([RawArgument(key: "mode", "wrap")]) }
    }
}
