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

    /// Every stage of the package keeps the promises of its class, as a streamed run relies on
    /// them: ImagePipe's conformance kit makes seeded pictures of odd shapes and holds every
    /// strip, window, survey, tile and reduced decode to the whole picture, byte for byte.
    @Test func everyStageKeepsItsClassesPromises() {
        let stages: [any Transform] = [SepiaStage(), SepiaStage(amount: 50), VignetteStage(strength: 80), SoftenStage(radius: 2),
                                       SquareStage(), SquareStage(size: 10), StretchStage(),
                                       SwirlStage(angle: Angle(degrees: 150), radius: 30)]
        for stage in stages {
            #expect(StageConformance().findings(for: stage) == [], "\(stage.text)")
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

    /// What each stage does, which the kit cannot know: the vignette darkens the corners, soften
    /// softens, the square keeps the middle, the stretch reaches 0 and 255, the swirl turns the
    /// middle and leaves the corners.
    @Test func eachStageDoesItsWork() throws {
        let picture = try busy(Size(30, 50))
        #expect(try VignetteStage(strength: 80).apply(to: picture).pixel(x: 0, y: 0) != picture.pixel(x: 0, y: 0))
        #expect(try SoftenStage(radius: 2).apply(to: picture).pixel(x: 5, y: 5) != picture.pixel(x: 5, y: 5))
        let square = try SquareStage().apply(to: picture)
        #expect(square.size == Size(30, 30) && square.pixel(x: 0, y: 0) == picture.pixel(x: 0, y: 10))
        #expect(SquareStage(size: 10).reducedInput(for: Size(40, 60)) == Size(10, 15) && SquareStage(size: 50).reducedInput(for: Size(40, 60)) == nil)
        // Values 60 to 180 only: a picture that wants stretching.
        let narrow = try Image.make(size: Size(16, 23), hasAlpha: false) { writer in
            for y in 0..<23 {
                let row = writer.row(y)
                for i in row.indices { row[i] = UInt8(60 + (i * 13 + y * 7) % 121) }
            }
        }
        #expect(StretchStage().stageClass == .whole && StretchStage().surveyedClass == .point)
        let stretched = try StretchStage().apply(to: narrow)
        let values = (0..<stretched.height).flatMap { Array(stretched.row($0)) }
        #expect(values.min() == 0 && values.max() == 255)
        let swirl = SwirlStage(angle: Angle(degrees: 150), radius: 90), turned = try swirl.apply(to: picture)
        #expect(swirl.warps(picture.size) && !SwirlStage(angle: .zero).warps(picture.size))
        #expect(turned.pixel(x: 15, y: 20) != picture.pixel(x: 15, y: 20), "the middle turns")
        #expect(turned.pixel(x: 0, y: 0) == picture.pixel(x: 0, y: 0), "the corners stay")
    }
}
