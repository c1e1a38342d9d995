import Testing
import ImagePipe
import Geometry
import TestSupport

@Suite struct FlipFlopTests {
    private let pattern = { (x: Int, y: Int) in Color(red: UInt8(x), green: UInt8(y), blue: UInt8(x * y % 256), alpha: UInt8(200 + x % 50)) }

    @Test(arguments: [Size(1, 1), Size(4, 6), Size(5, 7), Size(8, 3)])
    func flipAndFlopMovePixelsExactly(size: Size) throws {
        for alpha in [false, true] {
            let source = try Synthetic.image(size.width, size.height, alpha: alpha, pattern)
            let flipped = try FlipStage().apply(to: source), flopped = try FlopStage().apply(to: source)
            #expect(flipped.size == size && flopped.size == size)
            #expect(flipped.hasAlpha == alpha && flopped.hasAlpha == alpha)
            for y in 0..<size.height {
                for x in 0..<size.width {
                    #expect(flipped.pixel(x: x, y: y) == source.pixel(x: x, y: size.height - 1 - y))
                    #expect(flopped.pixel(x: x, y: y) == source.pixel(x: size.width - 1 - x, y: y))
                }
            }
        }
    }

    /// flop says it works row by row (so a JPEG-to-JPEG run streams it); flip cannot.
    @Test func flopMirrorsStripsAsItMirrorsTheWhole() throws {
        #expect(FlopStage().stageClass == .point && FlipStage().stageClass != .point)
        let source = try Synthetic.image(9, 40, pattern)
        let whole = try FlopStage().apply(to: source)
        for rows in [0..<32, 32..<40] {
            let strip = try FlopStage().apply(to: source.cropped(to: Rect(x: 0, y: rows.lowerBound, width: 9, height: rows.count)))
            for y in rows { for x in 0..<9 { #expect(strip.pixel(x: x, y: y - rows.lowerBound) == whole.pixel(x: x, y: y)) } }
        }
    }

    @Test func canonicalText() throws {
        #expect(FlipStage().text == "flip" && FlopStage().text == "flop")
        #expect(try FlipStage.parse([]) == FlipStage())
        #expect(throws: ArgumentError.self) { try FlopStage.parse([RawArgument("x")]) }
    }
}
