import ImagePipeCore
import Sepia
import Testing

@Suite struct SepiaStageTests {
    private func picture(_ color: Color, alpha: Bool = false) throws -> Image {
        try Image.make(size: Size(2, 1), hasAlpha: alpha) { writer in
            let row = writer.row(0)
            for x in 0..<2 {
                let start = x * writer.channelCount
                row[start] = color.red
                row[start + 1] = color.green
                row[start + 2] = color.blue
                if alpha { row[start + 3] = color.alpha }
            }
        }
    }

    @Test func greyTurnsBrown() throws {
        let result = try SepiaStage().apply(to: picture(Color(red: 100, green: 100, blue: 100)))
        // 0.393+0.769+0.189 = 1.351 → 135; 1.203 → 120; 0.937 → 94
        #expect(result.pixel(x: 1, y: 0) == Color(red: 135, green: 120, blue: 94))
    }

    @Test func amountMixesWithTheOriginal() throws {
        let grey = Color(red: 100, green: 100, blue: 100)
        #expect(try SepiaStage(amount: 0).apply(to: picture(grey)).pixel(x: 0, y: 0) == grey)
        #expect(try SepiaStage(amount: 50).apply(to: picture(grey)).pixel(x: 0, y: 0) == Color(red: 118, green: 110, blue: 97))
    }

    @Test func whiteClampsAndAlphaStays() throws {
        let result = try SepiaStage().apply(to: picture(Color(red: 255, green: 255, blue: 255, alpha: 60), alpha: true))
        #expect(result.pixel(x: 0, y: 0) == Color(red: 255, green: 255, blue: 239, alpha: 60))
    }

    @Test func schemaAndText() throws {
        #expect(try SepiaStage.parse([RawArgument("80%")]).text == "sepia 80%")
        #expect(throws: ArgumentError.self) { try SepiaStage.parse([RawArgument("180%")]) }
    }

    /// A streamed run hands the vignette strips at their place: their rows are the whole picture's.
    @Test func vignetteStripsAreTheWholePicturesRows() throws {
        let size = Size(20, 37)
        let picture = try Image.make(size: size, hasAlpha: false) { writer in
            for y in 0..<size.height {
                let row = writer.row(y)
                for i in row.indices { row[i] = UInt8((i * 7 + y * 3) % 256) }
            }
        }
        let stage = VignetteStage(strength: 80)
        let whole = try stage.apply(to: picture)
        #expect(whole.pixel(x: 0, y: 0) != picture.pixel(x: 0, y: 0), "the corners darken")
        for top in stride(from: 0, to: size.height, by: 7) {
            let rows = min(7, size.height - top)
            let strip = try picture.cropped(to: Rect(x: 0, y: top, width: size.width, height: rows))
            let made = try stage.apply(to: strip, at: StripPosition(top: top, pictureSize: size))
            for y in 0..<rows { #expect(Array(made.row(y)) == Array(whole.row(top + y)), "row \(top + y)") }
        }
    }
}
