import Foundation

/// Holds a stage to the promises its class makes (`StageClass`), the way a streamed run relies
/// on them: on seeded random pictures of odd shapes, with and without alpha, every strip the run
/// could ask for (strips of 1, 7 and 32 rows by default), made on several threads at once, must
/// be the rows the stage makes of the whole picture (`makeRows(_:from:)` given every row), byte
/// for byte; the output's size
/// and alpha must be what the stage says before any pixel (`outputSize(for:)`,
/// `outputHasAlpha(inputHasAlpha:)`); a resample stage's windows must stay inside the picture
/// and never move back; a surveying stage must give, after a survey in strips, a stage of the
/// class it announced that makes the same pixels; a stage that only moves pixels
/// (`RearrangingStage`) must move them as it says. The project holds every stage of its
/// registry to it, and a stage package's tests can do the same with one line:
///
///     #expect(StageConformance().findings(for: MyStage()) == [])
public struct StageConformance: Sendable {
    /// The pictures' sizes: a single pixel, a column, a row, odd shapes either side of the strip
    /// heights, and one large enough for a stage that crops a few hundred pixels.
    public var sizes: [Size] = [Size(1, 1), Size(1, 40), Size(41, 1), Size(37, 23), Size(29, 70), Size(333, 241)]
    /// The strip heights a run is pretended to ask for.
    public var stripHeights: [Int] = [1, 7, 32]
    /// How many threads make a picture's strips at once (a stage's strips must not share state).
    public var threads = 3
    /// The pictures' seed: the same seed, the same pictures.
    public var seed: UInt64 = 0x5EED

    public init() {}

    /// What `stage` does against its class's promises, each a sentence naming the stage, the
    /// picture and the rows; empty when it keeps them all. A picture the stage refuses (a crop
    /// larger than it) is passed over; a stage that refuses every picture is a finding, since
    /// nothing could be checked.
    public func findings(for stage: any Transform) -> [String] {
        var findings: [String] = []
        var checked = 0
        for (index, size) in sizes.enumerated() {
            for hasAlpha in [false, true] {
                let picture = Self.picture(size, hasAlpha: hasAlpha, seed: seed &+ UInt64(index * 2 + (hasAlpha ? 1 : 0)))
                let name = "\(stage.text) on a \(size)\(hasAlpha ? " RGBA" : "") picture"
                guard let whole = try? stage.apply(to: picture) else { continue }
                checked += 1
                findings += check(stage, on: picture, giving: whole, name: name)
            }
        }
        if checked == 0 { findings.append("\(stage.text) refused every test picture (\(sizes.map(\.description).joined(separator: ", "))): nothing could be checked") }
        return findings
    }

    /// The checks of one picture, whose whole-picture output is `whole`.
    private func check(_ stage: any Transform, on picture: Image, giving whole: Image, name: String) -> [String] {
        var findings: [String] = []
        do {
            let promised = try stage.outputSize(for: picture.size)
            let sizeKept = stage.outputSizeIsUpperBound ? whole.width <= promised.width && whole.height <= promised.height : whole.size == promised
            if !sizeKept { findings.append("\(name): apply(to:) made \(whole.size), outputSize(for:) says \(promised)") }
        } catch {
            findings.append("\(name): outputSize(for:) refused a picture apply(to:) takes: \(error)")
        }
        if whole.hasAlpha != stage.outputHasAlpha(inputHasAlpha: picture.hasAlpha) {
            findings.append("\(name): apply(to:) made \(whole.hasAlpha ? "RGBA" : "RGB"), outputHasAlpha says otherwise")
        }
        if let again = try? stage.apply(to: picture), !Self.same(again, whole) {
            findings.append("\(name): two apply(to:)s of one picture differ (state kept between calls?)")
        }
        findings += checkRearrangement(stage, on: picture, giving: whole, name: name)
        if let warping = stage as? any WarpingStage, warping.warps(picture.size) {
            for side in stripHeights {
                findings += checkTiles(warping, on: picture, giving: whole, side: side, name: "\(name), tiles of \(side)×\(side)")
            }
        }
        if let surveying = stage as? any SurveyingStage, stage.surveys {
            for height in stripHeights {
                do {
                    let surveyed = try Self.survey(surveying, of: picture, strips: height)
                    guard surveyed.stageClass == surveying.surveyedClass, !surveyed.awaitsSurvey else {
                        findings.append("\(name): the stage its survey made is \(surveyed.stageClass), not the \(surveying.surveyedClass) it announced")
                        continue
                    }
                    findings += checkStrips(surveyed, on: picture, giving: whole, height: height, name: "\(name), surveyed in strips of \(height)")
                } catch {
                    findings.append("\(name): surveying in strips of \(height) failed: \(error)")
                }
            }
            return findings
        }
        for height in stripHeights {
            findings += checkStrips(stage, on: picture, giving: whole, height: height, name: "\(name), strips of \(height)")
        }
        if stage.stageClass == .resample, let reduced = try? stage.shrinkOnLoad?.reducedInput(for: picture.size), reduced != picture.size {
            findings += checkReducedStrips(stage, on: picture.size, decodedAt: reduced, name: "\(name), decoded at \(reduced)")
        }
        return findings
    }

    /// A resample stage that asks for a reduced decode (`ShrinkOnLoadStage`): its strips from a
    /// reduced decode's rows against its output from the whole reduced decode.
    private func checkReducedStrips(_ stage: any Transform, on fullSize: Size, decodedAt size: Size, name: String) -> [String] {
        let decoded = Self.picture(size, hasAlpha: false, seed: seed &+ 0xDEC0DE)
        let source = ReducedImage(image: decoded, fullSize: fullSize,
                                  mapping: PixelMapping(scaleX: Double(size.width) / Double(fullSize.width), scaleY: Double(size.height) / Double(fullSize.height)))
        guard let whole = try? stage.apply(to: source) else { return ["\(name): apply(to: ReducedImage) refused the decode reducedInput(for:) asked for"] }
        return stripHeights.flatMap { height in
            checkStrips(stage, on: decoded, giving: whole, height: height, reduction: source.reduction, name: "\(name), strips of \(height)")
        }
    }

    /// A streamed run's strips of `height` output rows, made by the stage's class method on
    /// `threads` threads at once, against the whole picture's rows; with `reduction`, from the
    /// rows of a reduced decode (`picture`).
    private func checkStrips(_ stage: any Transform, on picture: Image, giving whole: Image, height: Int, reduction: DecodeReduction? = nil,
                             name: String) -> [String] {
        let stageClass = stage.stageClass
        if stageClass == .whole { return [] }
        if stageClass != .resample, whole.size != picture.size {
            return ["\(name): a \(stageClass) stage must keep the picture's size, but apply(to:) made \(whole.size) of \(picture.size)"]
        }
        var planned: [(rows: Range<Int>, window: Range<Int>)] = []
        var top = 0
        for first in stride(from: 0, to: whole.height, by: height) {
            let rows = first..<min(whole.height, first + height)
            let window: Range<Int>
            do {
                window = try stage.inputRows(forOutput: rows, of: reduction ?? .none(picture.size))
            } catch {
                return ["\(name): inputRows(forOutput: \(rows)) refused: \(error)"]
            }
            guard !window.isEmpty, window.lowerBound >= 0, window.upperBound <= picture.height else {
                return ["\(name): inputRows(forOutput: \(rows)) is \(window), outside the picture's rows 0..<\(picture.height)"]
            }
            guard window.lowerBound >= top else {
                return ["\(name): inputRows(forOutput: \(rows)) is \(window), above the previous strip's window (a window must not move back)"]
            }
            top = window.lowerBound
            planned.append((rows, window))
        }
        let found = Locked<[String]>([])
        let (strips, chunks) = (planned, max(1, min(threads, planned.count)))
        DispatchQueue.concurrentPerform(iterations: chunks) { chunk in
            for index in stride(from: chunk, to: strips.count, by: chunks) {
                let (rows, window) = strips[index]
                do {
                    let input = try picture.cropped(to: Rect(x: 0, y: window.lowerBound, width: picture.width, height: window.count))
                    let made = try stage.makeRows(rows, from: StageInput(pixels: input, top: window.lowerBound, picture: reduction ?? .none(picture.size)))
                    let expected = try whole.cropped(to: Rect(x: 0, y: rows.lowerBound, width: whole.width, height: rows.count))
                    if !Self.same(made, expected) {
                        found.withLock { $0.append("\(name): rows \(rows) differ from the whole picture's\(Self.firstDifference(made, expected))") }
                    }
                } catch {
                    found.withLock { $0.append("\(name): rows \(rows) failed: \(error)") }
                }
            }
        }
        return found.withLock { Array($0.sorted().prefix(3)) }
    }

    /// A warping stage's output tiles of `side` pixels, each rendered from the input rectangle
    /// the stage names for it, against the whole picture's.
    private func checkTiles(_ stage: any WarpingStage, on picture: Image, giving whole: Image, side: Int, name: String) -> [String] {
        for top in stride(from: 0, to: whole.height, by: side) {
            for left in stride(from: 0, to: whole.width, by: side) {
                let rect = Rect(x: left, y: top, width: min(side, whole.width - left), height: min(side, whole.height - top))
                do {
                    let source = try stage.inputRect(forOutput: rect, inputSize: picture.size)
                    if let source, source.x < 0 || source.y < 0 || source.x + source.width > picture.width || source.y + source.height > picture.height {
                        return ["\(name): inputRect(forOutput: \(rect)) is \(source), outside the \(picture.size) picture"]
                    }
                    let made = try stage.render(rect, from: try source.map { try picture.cropped(to: $0) }, at: source, inputSize: picture.size)
                    let expected = try whole.cropped(to: rect)
                    if !Self.same(made, expected) { return ["\(name): tile \(rect) differs from the whole picture's\(Self.firstDifference(made, expected))"] }
                } catch {
                    return ["\(name): tile \(rect) failed: \(error)"]
                }
            }
        }
        return []
    }

    /// A stage that says it only moves pixels (which lossless JPEG runs trust) must move every
    /// one where its turn or crop says.
    private func checkRearrangement(_ stage: any Transform, on picture: Image, giving whole: Image, name: String) -> [String] {
        guard let rearrangement = try? stage.rearranging?.rearrangement(for: picture.size) else { return [] }
        for y in 0..<picture.height {
            for x in 0..<picture.width {
                let to: (x: Int, y: Int)
                switch rearrangement {
                case let .orient(turn):
                    let moved = turn.map(Rect(x: x, y: y, width: 1, height: 1), in: picture.size)
                    to = (moved.x, moved.y)
                case let .crop(rect):
                    guard (rect.x..<rect.x + rect.width).contains(x), (rect.y..<rect.y + rect.height).contains(y) else { continue }
                    to = (x - rect.x, y - rect.y)
                }
                guard to.x >= 0, to.y >= 0, to.x < whole.width, to.y < whole.height, whole.pixel(x: to.x, y: to.y) == picture.pixel(x: x, y: y) else {
                    return ["\(name): rearrangement(for:) says \(rearrangement), but pixel (\(x), \(y)) is not at (\(to.x), \(to.y)) of apply(to:)'s output"]
                }
            }
        }
        return []
    }

    /// The stage `stage` becomes once its survey has seen `picture` in strips of `height` rows.
    private static func survey<S: SurveyingStage>(_ stage: S, of picture: Image, strips height: Int) throws -> any Transform {
        var survey = stage.newSurvey()
        for top in stride(from: 0, to: picture.height, by: height) {
            let strip = try picture.cropped(to: Rect(x: 0, y: top, width: picture.width, height: min(height, picture.height - top)))
            try survey.look(at: strip, at: StripPosition(top: top, pictureSize: picture.size))
        }
        return try stage.surveyed(by: survey)
    }

    /// Whether two pictures have the same size, channels and pixels.
    static func same(_ a: Image, _ b: Image) -> Bool {
        guard a.size == b.size, a.hasAlpha == b.hasAlpha else { return false }
        return (0..<a.height).allSatisfy { a.row($0).elementsEqual(b.row($0)) }
    }

    /// Where two pictures first differ, for the finding.
    private static func firstDifference(_ made: Image, _ expected: Image) -> String {
        guard made.size == expected.size, made.hasAlpha == expected.hasAlpha else {
            return ": made \(made.size)\(made.hasAlpha ? " RGBA" : ""), expected \(expected.size)\(expected.hasAlpha ? " RGBA" : "")"
        }
        for y in 0..<made.height {
            for x in 0..<made.width where made.pixel(x: x, y: y) != expected.pixel(x: x, y: y) {
                return " first at (\(x), \(y)) of the strip: \(made.pixel(x: x, y: y)), expected \(expected.pixel(x: x, y: y))"
            }
        }
        return ""
    }

    /// Seeded noise with structure (gradients, edges, flat runs, every alpha level), so that a
    /// row or a column from the wrong place, or a value clamped the wrong way, shows.
    static func picture(_ size: Size, hasAlpha: Bool, seed: UInt64) -> Image {
        var state = seed
        func next() -> UInt8 {
            // SplitMix64: small, seeded and the same on every machine.
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return UInt8(truncatingIfNeeded: z ^ (z >> 31))
        }
        // A size of at least one pixel and a writer that takes every row cannot fail.
        return try! Image.make(size: size, hasAlpha: hasAlpha) { writer in
            for y in 0..<size.height {
                let row = writer.row(y)
                for x in 0..<size.width {
                    let start = x * writer.channelCount
                    let noisy = (x + y) % 3 == 0
                    row[start] = noisy ? next() : UInt8(truncatingIfNeeded: x * 255 / max(1, size.width - 1))
                    row[start + 1] = noisy ? next() : UInt8(truncatingIfNeeded: y * 255 / max(1, size.height - 1))
                    row[start + 2] = x < size.width / 2 ? 0 : (y % 2 == 0 ? 255 : next())
                    if hasAlpha { row[start + 3] = (x + 2 * y) % 5 == 0 ? 255 : next() }
                }
            }
        }
    }
}
