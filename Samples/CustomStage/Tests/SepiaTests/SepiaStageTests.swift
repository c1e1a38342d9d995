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

    /// A surveying stage: the survey seeing the picture strip by strip, then the stage it made
    /// working strip by strip, give the whole picture's pixels; and the stretch reaches 0 and 255.
    @Test func stretchSurveyedInStripsGivesTheWholePicturesRows() throws {
        // Values 60 to 180 only: a picture that wants stretching.
        let picture = try Image.make(size: Size(16, 23), hasAlpha: false) { writer in
            for y in 0..<23 {
                let row = writer.row(y)
                for i in row.indices { row[i] = UInt8(60 + (i * 13 + y * 7) % 121) }
            }
        }
        let stage = StretchStage()
        #expect(stage.stageClass == .whole && stage.surveyedClass == .point)
        let whole = try stage.apply(to: picture)
        var survey = stage.newSurvey()
        for top in stride(from: 0, to: picture.height, by: 5) {
            let strip = try picture.cropped(to: Rect(x: 0, y: top, width: picture.width, height: min(5, picture.height - top)))
            try survey.look(at: strip, at: StripPosition(top: top, pictureSize: picture.size))
        }
        #expect(survey.low == [60, 60, 60] && survey.high == [180, 180, 180])
        let surveyed = stage.surveyed(by: survey)
        #expect(surveyed.stageClass == .point)
        for top in stride(from: 0, to: picture.height, by: 5) {
            let rows = min(5, picture.height - top)
            let strip = try picture.cropped(to: Rect(x: 0, y: top, width: picture.width, height: rows))
            let made = try surveyed.apply(to: strip, at: StripPosition(top: top, pictureSize: picture.size))
            for y in 0..<rows { #expect(Array(made.row(y)) == Array(whole.row(top + y)), "row \(top + y)") }
        }
        let values = (0..<whole.height).flatMap { Array(whole.row($0)) }
        #expect(values.min() == 0 && values.max() == 255)
    }

    /// A warping stage: each tile rendered from the input rectangle it names (and nothing else)
    /// is that tile of the whole picture; the middle turns, the corners stay.
    @Test func swirlTilesComeFromTheRectanglesTheyName() throws {
        let picture = try busy(Size(45, 38)), stage = SwirlStage(angle: Angle(degrees: 150), radius: 90)
        #expect(stage.warps(picture.size) && !SwirlStage(angle: .zero).warps(picture.size))
        let whole = try stage.apply(to: picture)
        #expect(whole.pixel(x: 22, y: 12) != picture.pixel(x: 22, y: 12), "the middle turns")
        #expect(whole.pixel(x: 0, y: 0) == picture.pixel(x: 0, y: 0), "the corners stay")
        for top in stride(from: 0, to: picture.height, by: 9) {
            for left in stride(from: 0, to: picture.width, by: 10) {
                let tile = Rect(x: left, y: top, width: min(10, picture.width - left), height: min(9, picture.height - top))
                let source = try #require(try stage.inputRect(forOutput: tile, inputSize: picture.size))
                #expect(source.x >= 0 && source.y >= 0 && source.x + source.width <= picture.width && source.y + source.height <= picture.height)
                let made = try stage.render(tile, from: picture.cropped(to: source), at: source, inputSize: picture.size)
                let expected = try whole.cropped(to: tile)
                for y in 0..<tile.height { #expect(Array(made.row(y)) == Array(expected.row(y)), "tile at \(left),\(top), row \(y)") }
            }
        }
    }
}
