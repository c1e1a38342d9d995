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

    @Test func canonicalText() throws {
        #expect(FlipStage().text == "flip" && FlopStage().text == "flop")
        #expect(try FlipStage.parse([]) == FlipStage())
        #expect(throws: ArgumentError.self) { try FlopStage.parse([RawArgument("x")]) }
    }
}
