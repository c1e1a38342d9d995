import Testing
import ImagePipe
import FitZoom
import TestSupport

@Suite struct FitStageTests {
    private func fit(_ text: String) throws -> FitStage { try StageText.parse(FitStage.self, text) }

    /// `kernel=` and `linear=` reach the resampler: a 1-px checkerboard halved is grey 128 by
    /// default, 188 in linear light; `nearest` picks pixels, so it stays black or white.
    @Test func kernelAndLinearLight() throws {
        let board = try Synthetic.image(64, 64) { x, y in (x + y) % 2 == 0 ? .black : Color(red: 255, green: 255, blue: 255) }
        #expect(abs(Int(try fit("32x32 kernel=box").apply(to: board).pixel(x: 9, y: 9).red) - 128) <= 1)
        #expect(abs(Int(try fit("32x32 kernel=box linear=true").apply(to: board).pixel(x: 9, y: 9).red) - 188) <= 1)
        let picked = try fit("32x32 kernel=nearest").apply(to: board).pixel(x: 9, y: 9).red
        #expect(picked == 0 || picked == 255)
        #expect(try fit("32x32 kernel=lanczos3 linear=true").text == "fit 32x32 kernel=lanczos3 linear=true")
        #expect(try fit("32x32 kernel=auto").text == "fit 32x32")
    }

    @Test func limitingSideIsExact() throws {
        #expect(try fit("1280x720").outputSize(for: Size(2560, 3837)) == Size(480, 720))
        #expect(try fit("1280x720").outputSize(for: Size(4000, 3000)) == Size(960, 720))
        #expect(try fit("1280x720").outputSize(for: Size(4000, 1000)) == Size(1280, 320))
    }

    @Test func zoomMultipliesTheFittingZoom() throws {
        #expect(try fit("100x100 zoom=2").outputSize(for: Size(400, 200)) == Size(200, 100))
        #expect(try fit("100x100 zoom=1.5").outputSize(for: Size(401, 199)) == Size(150, 74))
    }

    @Test func upscaleFalseNeverEnlarges() throws {
        #expect(try fit("1280x720 upscale=false").outputSize(for: Size(100, 50)) == Size(100, 50))
        #expect(try fit("1280x720").outputSize(for: Size(100, 50)) == Size(1280, 640))
        #expect(try fit("50x50 upscale=false").outputSize(for: Size(100, 50)) == Size(50, 25))
    }

    @Test func thinAndTinyPictures() throws {
        let stage = try fit("100x50")
        for size in [Size(1, 1), Size(1, 999), Size(999, 1), Size(3, 2)] {
            let image = try Synthetic.gradient(size.width, size.height)
            let result = try stage.apply(to: image)
            #expect(result.size == stage.outputSize(for: size))
            #expect(result.width <= 100 && result.height <= 50)
        }
    }

    @Test func pixelsFollowThePicture() throws {
        let source = try Synthetic.halves(40, 20) // red | blue
        let result = try fit("20x20").apply(to: source)
        #expect(result.size == Size(20, 10))
        #expect(Synthetic.close(result.pixel(x: 2, y: 5), Color(red: 255, green: 0, blue: 0), tolerance: 2))
        #expect(Synthetic.close(result.pixel(x: 17, y: 5), Color(red: 0, green: 0, blue: 255), tolerance: 2))
    }

    @Test func alphaIsKeptWithoutDarkFringes() throws {
        // Opaque white on the left, transparent black on the right: scaling must not pull the
        // visible edge towards black.
        let source = try Synthetic.image(40, 4, alpha: true) { x, _ in x < 20 ? .white : .transparent }
        let result = try fit("20x20").apply(to: source)
        #expect(result.hasAlpha)
        for x in 0..<result.width where result.pixel(x: x, y: 1).alpha > 8 {
            #expect(result.pixel(x: x, y: 1).red >= 250, "x \(x): \(result.pixel(x: x, y: 1))")
        }
    }

    @Test func schemaRefusesNonsense() {
        for bad in ["0x720", "-5x5", "1280x720 zoom=0.5", "1280x720 zoom=nan", "1280x720 zoom=inf", "1280x720 upscale=maybe"] {
            #expect(throws: ArgumentError.self, "\(bad)") { try fit(bad) }
        }
        #expect(throws: ArgumentError.self) { try fit("") }
    }

    @Test func canonicalText() throws {
        #expect(try fit("1280x720").text == "fit 1280x720")
        #expect(try fit("1280x720 zoom=2 upscale=false").text == "fit 1280x720 zoom=2 upscale=false")
        #expect(FitStage(1280, 720) == (try fit("1280x720")))
    }
}
