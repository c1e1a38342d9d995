import Foundation
import Testing
@testable import ImagePipe
@testable import ImagePipeCore
import TestSupport

/// `strip-level`: shifts every channel so that the picture's mean red becomes 128, a stage that
/// must see every pixel first (`SurveyingStage`). Its survey notes each strip it is shown.
struct StripLevel: Transform, DeclaredStage, SurveyingStage {
    static let declaration = StageDeclaration("strip-level", summary: "Shift to a mean red of 128 (test stage)", start: StripLevel(), [])
    let shown = Locked<[Range<Int>]>([])
    /// The shift the survey found; nil before it.
    var shift: Int?

    static func == (a: Self, b: Self) -> Bool { a.shift == b.shift }
    var stageClass: StageClass { shift == nil ? .whole : .point }
    var surveyedClass: StageClass { .point }
    func outputSize(for input: Size) -> Size { input }

    struct RedSum: PixelSurvey {
        let shown: Locked<[Range<Int>]>
        var sum = 0, count = 0
        mutating func look(at rows: Image, at position: StripPosition) {
            #expect(position.pictureSize == Size(240, 203))
            shown.withLock { $0.append(position.top..<position.top + rows.height) }
            for y in 0..<rows.height {
                for x in 0..<rows.width { sum += Int(rows.row(y)[x * 3]) }
            }
            count += rows.width * rows.height
        }
        var shift: Int { 128 - sum / max(1, count) }
    }

    func newSurvey() -> RedSum { RedSum(shown: shown) }

    func surveyed(by survey: RedSum) -> any Transform {
        var stage = self
        stage.shift = survey.shift
        return stage
    }

    func makeRows(_ rows: Range<Int>, from input: StageInput) throws -> Image {
        let image = input.pixels
        let shift = self.shift ?? {
            var survey = RedSum(shown: Locked([]))
            survey.look(at: image, at: StripPosition(top: 0, pictureSize: image.size))
            return survey.shift
        }()
        return try image.mapChannels((0...255).map { UInt8(clamping: $0 + shift) })
    }
}

/// `endless-survey`: a stage whose survey gives back a stage that still surveys (an author's
/// easy slip); a streamed run surveyed it again and again until the stack ran out.
struct EndlessSurvey: Transform, DeclaredStage, SurveyingStage {
    static let declaration = StageDeclaration("endless-survey", summary: "Surveys for ever (test stage)", start: EndlessSurvey(), [])
    var stageClass: StageClass { .whole }
    var surveyedClass: StageClass { .point }
    func outputSize(for input: Size) -> Size { input }
    struct Nothing: PixelSurvey { mutating func look(at rows: Image, at position: StripPosition) {} }
    func newSurvey() -> Nothing { Nothing() }
    func surveyed(by survey: Nothing) -> any Transform { self }
    func makeRows(_ rows: Range<Int>, from input: StageInput) throws -> Image { input.pixels }
}

/// A resample stage that does not say which rows it reads: refused, where it trapped.
struct SilentResample: Transform, DeclaredStage {
    static let declaration = StageDeclaration("silent-resample", summary: "Halves the height (test stage)", start: SilentResample(), [])
    var stageClass: StageClass { .resample }
    func outputSize(for input: Size) -> Size { Size(input.width, max(1, input.height / 2)) }
    func makeRows(_ rows: Range<Int>, from input: StageInput) throws -> Image { input.pixels }
}

/// A stage that surveys the picture first: the streamed run reads the picture once for the
/// survey, strip by strip from the top, through the stages before it, then streams through
/// the point stage the survey made, to the ordinary run's bytes.
@Suite struct SurveyStreamingTests {
    @Test func theSurveySeesEveryStripOnceThenThePictureStreams() throws {
        let directory = try TemporaryDirectory()
        let picture = try Synthetic.image(240, 203) { x, y in Color(red: UInt8((x * 3 + y) % 200), green: UInt8(y % 256), blue: UInt8(x % 256)) }
        let input = try directory.write(picture.encoded(as: .png), to: "in.png")
        let level = StripLevel()
        let pipeline = Pipeline(transforms: [StripInvert(), StripBox(radius: 2), level, StripInvert()], sink: Save())
        let context = RunContext(input: input, output: directory.file("streamed.png"))
        let prepared = try pipeline.prepare(in: context)
        #expect(pipeline.streams(in: context, prepared: prepared))
        try pipeline.run(in: context)
        // Every row once, top to bottom, in strips.
        let shown = level.shown.withLock { $0 }
        #expect(shown.count > 1 && shown.first?.lowerBound == 0 && shown.last?.upperBound == 203, "\(shown)")
        #expect(zip(shown, shown.dropFirst()).allSatisfy { $0.upperBound == $1.lowerBound }, "\(shown)")
        try pipeline.run(in: RunContext(input: input, output: directory.file("ordinary.png"))) { _ in }
        let streamed = try Data(contentsOf: URL(fileURLWithPath: directory.file("streamed.png")))
        #expect(streamed == (try Data(contentsOf: URL(fileURLWithPath: directory.file("ordinary.png")))))
        // The survey made a difference: the mean red of the result (before the last invert) is 128.
        let result = try Image.decode(Array(streamed))
        var sum = 0
        for y in 0..<result.height { for x in 0..<result.width { sum += 255 - Int(result.pixel(x: x, y: y).red) } }
        #expect(abs(sum / result.size.pixelCount - 128) <= 1)
    }

    @Test func aSurveyThatNeverEndsIsAnError() throws {
        let directory = try TemporaryDirectory()
        let input = try directory.write(Synthetic.gradient(40, 30).encoded(as: .png), to: "in.png")
        let pipeline = Pipeline(transforms: [EndlessSurvey()], sink: Save())
        let context = RunContext(input: input, output: directory.file("out.png"))
        let error = #expect(throws: (any Error).self) { try pipeline.run(in: context) }
        #expect(String(describing: error).contains("endless-survey: its survey made a stage that still waits for a survey"), "\(String(describing: error))")
        #expect(!FileManager.default.fileExists(atPath: directory.file("out.png")))
    }

    @Test func aResampleStageWithoutItsRowsIsAnError() throws {
        let error = #expect(throws: StageError.self) { try SilentResample().inputRows(forOutput: 0..<2, of: .none(Size(4, 8))) }
        #expect(error?.message.contains("silent-resample says it is a resample stage") == true, "\(String(describing: error))")
    }
}
