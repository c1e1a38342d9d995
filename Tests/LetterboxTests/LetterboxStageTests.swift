import Testing
import ImagePipe
import Letterbox
import TestSupport

@Suite struct LetterboxStageTests {
    private let red = Color(red: 255, green: 0, blue: 0)

    @Test func centresWhereSmallerFlooringTheOddPixel() throws {
        let stage = LetterboxStage(size: Size(13, 10), color: .black)
        let result = try stage.apply(to: Synthetic.image(10, 10) { _, _ in red })
        #expect(result.size == Size(13, 10))
        #expect(stage.placement(for: Size(10, 10)) == (1, 0))
        #expect(result.pixel(x: 0, y: 5) == .black)
        #expect(result.pixel(x: 1, y: 5) == red)
        #expect(result.pixel(x: 10, y: 5) == red)
        #expect(result.pixel(x: 11, y: 5) == .black && result.pixel(x: 12, y: 5) == .black)
    }

    @Test func property_pictureLandsWhereTheSeedSays() throws {
        var random = SeededGenerator(seed: 40)
        for _ in 0..<300 {
            let picture = random.size(1...60), canvas = random.size(1...60)
            let stage = LetterboxStage(size: canvas)
            let (x, y) = stage.placement(for: picture)
            if picture.width <= canvas.width { #expect(x == (canvas.width - picture.width) / 2) }
            else { #expect(x == -Rounding.pixels(Double(picture.width - canvas.width) / 2)) }
            if picture.height <= canvas.height { #expect(y == (canvas.height - picture.height) / 2) }
            else { #expect(y == -Rounding.pixels(Double(picture.height - canvas.height) / 2)) }
        }
    }

    @Test func offsetChoosesTheWindowWhereLarger() throws {
        let source = try Synthetic.image(30, 10) { x, _ in Color(red: UInt8(x), green: 0, blue: 0) }
        let left = try LetterboxStage(size: Size(10, 20), offset: .unit(x: 0, y: 0.5)).apply(to: source)
        #expect(left.pixel(x: 0, y: 10).red == 0)
        let right = try LetterboxStage(size: Size(10, 20), offset: .unit(x: 1, y: 0.5)).apply(to: source)
        #expect(right.pixel(x: 9, y: 10).red == 29)
        let scrolled = try LetterboxStage(size: Size(10, 20), offset: .pixels(x: 7, y: 0)).apply(to: source)
        #expect(scrolled.pixel(x: 0, y: 10).red == 7)
        let clamped = try LetterboxStage(size: Size(10, 20), offset: .pixels(x: 500, y: 0)).apply(to: source)
        #expect(clamped.pixel(x: 0, y: 10).red == 20)
        // The shorter axis stays centred whatever the offset says.
        #expect(scrolled.pixel(x: 0, y: 4) == .black && scrolled.pixel(x: 0, y: 5).red == 7)
    }

    @Test func transparentBarsGiveRGBA() throws {
        let result = try LetterboxStage(size: Size(20, 10), color: .transparent).apply(to: Synthetic.gradient(10, 10))
        #expect(result.hasAlpha)
        #expect(result.pixel(x: 0, y: 0) == .transparent)
        #expect(result.pixel(x: 10, y: 5).alpha == 255)
    }

    @Test func rgbaPictureKeepsItsAlphaBetweenOpaqueBars() throws {
        let half = try Synthetic.image(4, 4, alpha: true) { _, _ in Color(red: 255, green: 255, blue: 255, alpha: 128) }
        let result = try LetterboxStage(size: Size(6, 4), color: .black).apply(to: half)
        #expect(result.hasAlpha)
        #expect(result.pixel(x: 2, y: 2) == Color(red: 255, green: 255, blue: 255, alpha: 128))
        #expect(result.pixel(x: 0, y: 2) == .black)
    }

    @Test func onePixelPictures() throws {
        for size in [Size(1, 1), Size(1, 50), Size(50, 1)] {
            let result = try LetterboxStage(size: Size(7, 7)).apply(to: Synthetic.gradient(size.width, size.height))
            #expect(result.size == Size(7, 7))
        }
    }
}
