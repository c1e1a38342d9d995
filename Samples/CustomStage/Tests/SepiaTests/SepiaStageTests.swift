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

    /// A picture with something different in every row and column.
    private func busy(_ size: Size) throws -> Image {
        try Image.make(size: size, hasAlpha: false) { writer in
            for y in 0..<size.height {
                let row = writer.row(y)
                for i in row.indices { row[i] = UInt8(truncatingIfNeeded: (i &* 31) ^ (y &* 57)) }
            }
        }
    }

    /// An area stage makes a strip's rows from a window `radius` rows taller on each side
    /// (clamped at the picture's edges) exactly as from the whole picture.
    @Test func softenWindowsGiveTheWholePicturesRows() throws {
        let picture = try busy(Size(24, 41)), stage = SoftenStage(radius: 2)
        let whole = try stage.apply(to: picture)
        #expect(whole.pixel(x: 5, y: 5) != picture.pixel(x: 5, y: 5), "softened")
        for top in stride(from: 0, to: picture.height, by: 8) {
            let rows = top..<min(top + 8, picture.height)
            let window = max(0, top - 2)..<min(picture.height, rows.upperBound + 2)
            let made = try stage.apply(toWindow: picture.cropped(to: Rect(x: 0, y: window.lowerBound, width: picture.width, height: window.count)),
                                       rows: (rows.lowerBound - window.lowerBound)..<(rows.upperBound - window.lowerBound))
            for y in rows { #expect(Array(made.row(y - top)) == Array(whole.row(y)), "row \(y)") }
        }
    }

    /// A resample stage makes a strip of output from the input rows it names, and only those.
    @Test func squareStripsComeFromTheRowsTheyName() throws {
        let picture = try busy(Size(30, 50)), stage = SquareStage()
        let whole = try stage.apply(to: picture)
        #expect(whole.size == Size(30, 30) && whole.pixel(x: 0, y: 0) == picture.pixel(x: 0, y: 10))
        for top in stride(from: 0, to: 30, by: 7) {
            let rows = top..<min(top + 7, 30)
            let needed = try stage.inputRows(forOutput: rows, inputSize: picture.size)
            let window = try picture.cropped(to: Rect(x: 0, y: needed.lowerBound, width: picture.width, height: needed.count))
            let made = try stage.apply(toWindow: window, windowTop: needed.lowerBound, inputSize: picture.size, outputRows: rows)
            for y in rows { #expect(Array(made.row(y - top)) == Array(whole.row(y)), "row \(y)") }
        }
    }

    /// Scaled, the square asks for a reduced decode, and its strips from a reduced decode's rows
    /// are its whole output from that decode.
    @Test func aScaledSquareWorksOnAReducedDecode() throws {
        let stage = SquareStage(size: 10)
        #expect(stage.reducedInput(for: Size(40, 60)) == Size(10, 15) && SquareStage(size: 50).reducedInput(for: Size(40, 60)) == nil)
        let decoded = try busy(Size(20, 30))
        let source = ReducedImage(image: decoded, fullSize: Size(40, 60), mapping: PixelMapping(scaleX: 0.5, scaleY: 0.5))
        let whole = try stage.apply(to: source)
        #expect(whole.size == Size(10, 10))
        for top in stride(from: 0, to: 10, by: 3) {
            let rows = top..<min(top + 3, 10)
            let needed = try stage.inputRows(forOutput: rows, reduction: source.reduction)
            let window = try decoded.cropped(to: Rect(x: 0, y: needed.lowerBound, width: decoded.width, height: needed.count))
            let made = try stage.apply(toWindow: window, windowTop: needed.lowerBound, reduction: source.reduction, outputRows: rows)
            for y in rows { #expect(Array(made.row(y - top)) == Array(whole.row(y)), "row \(y)") }
        }
    }
}
