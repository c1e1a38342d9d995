import Testing
import ImagePipe
import AnchorRotate
import TestSupport

@Suite struct RotateStageTests {
    private let red = Color(red: 255, green: 0, blue: 0)

    @Test func zeroTurnIsIdentity() throws {
        let source = try Synthetic.gradient(9, 7)
        #expect(try RotateStage(turn: .angle(.zero)).apply(to: source) === source)
    }

    @Test func quarterTurnClockwiseAboutTheCentre() throws {
        // Red top-left pixel of a square: a clockwise quarter turn takes it to the top-right.
        let source = try Synthetic.image(8, 8) { x, y in x == 0 && y == 0 ? Color(red: 255, green: 0, blue: 0) : .white }
        let result = try RotateStage(turn: .angle(Angle(degrees: 90)), background: .black).apply(to: source)
        #expect(!result.hasAlpha)
        #expect(result.pixel(x: 7, y: 0) == red)
        #expect(result.pixel(x: 0, y: 0) == .white)
    }

    @Test func panIsTheSeedsGesture() throws {
        let stage = RotateStage(turn: .pan(200))
        #expect(abs(stage.angle(forWidth: 200).radians - .pi / 4) < 1e-12)
        #expect(abs(stage.angle(forWidth: 400).degrees - 22.5) < 1e-12)
    }

    @Test func anchorBelowThePictureSwingsIt() throws {
        // Turning clockwise about (0.5, 1.5) moves the top edge right: the left column empties.
        let source = try Synthetic.image(40, 40) { _, _ in red }
        let result = try RotateStage(turn: .angle(Angle(degrees: 10)), anchor: .unit(x: 0.5, y: 1.5)).apply(to: source)
        #expect(result.size == Size(40, 40) && result.hasAlpha)
        #expect(result.pixel(x: 0, y: 2).alpha == 0)
        #expect(result.pixel(x: 39, y: 10).alpha == 255)
        // Near the pivot the picture barely moves: its middle stays covered.
        #expect(result.pixel(x: 20, y: 30).alpha == 255)
    }

    @Test func edgesHaveNoDarkFringe() throws {
        let source = try Synthetic.image(30, 30) { _, _ in red }
        let result = try RotateStage(turn: .angle(Angle(degrees: 30)), expandsCanvas: true).apply(to: source)
        for y in 0..<result.height {
            for x in 0..<result.width where result.pixel(x: x, y: y).alpha > 0 {
                #expect(result.pixel(x: x, y: y).red >= 254, "\(x),\(y) \(result.pixel(x: x, y: y))")
            }
        }
    }

    @Test func expandedCanvasHoldsTheWholePicture() throws {
        #expect(RotateStage(turn: .angle(Angle(degrees: 90)), expandsCanvas: true).outputSize(for: Size(40, 20)) == Size(20, 40))
        #expect(RotateStage(turn: .angle(Angle(degrees: 45)), expandsCanvas: true).outputSize(for: Size(10, 10)) == Size(15, 15))
        #expect(RotateStage(turn: .angle(Angle(degrees: 180)), expandsCanvas: true).outputSize(for: Size(7, 3)) == Size(7, 3))
        var random = SeededGenerator(seed: 3)
        for _ in 0..<20 {
            let size = random.size(1...30)
            let stage = RotateStage(turn: .angle(Angle(degrees: Double.random(in: -360...360, using: &random))), expandsCanvas: true)
            let result = try stage.apply(to: Synthetic.gradient(size.width, size.height))
            #expect(result.size == stage.outputSize(for: size))
        }
    }

    @Test func angleOrPanExactlyOnce() {
        let both = try? #require(throws: ArgumentError.self) { try RotateStage.parse([RawArgument(key: "angle", "3"), RawArgument(key: "pan", "4")]) }
        #expect(both?.message == "rotate: give angle or pan, not both")
        #expect(throws: ArgumentError.self) { try RotateStage.parse([]) }
        #expect(throws: ArgumentError.self) { try RotateStage.parse([RawArgument(key: "angle", "nan")]) }
    }

    @Test func canonicalText() throws {
        #expect(try RotateStage.parse([RawArgument(key: "angle", "0.5rad")]).text.hasPrefix("rotate angle=28.64788975654116"))
        #expect(RotateStage(turn: .pan(120), anchor: .unit(x: 0.5, y: 1.5)).text == "rotate pan=120 anchor=0.5,1.5")
    }
}
