/// A stage that must see every pixel of its input before it can make any (normalize's
/// histogram), and then works in strips. A streamed run reads such a picture twice: the first
/// time only so that the stage looks at every strip of its input (its `Survey`), the second
/// through the stage the survey made (`surveyed(by:)`), of `surveyedClass`. Memory stays that
/// of strips; the price is a second decode, where a whole picture would hold the decode once.
/// Given the whole picture (`makeRows(_:from:)` as a `whole` stage), it must give the same pixels as
/// the surveyed stage does on strips (a promise tests hold).
public protocol SurveyingStage: Transform {
    associatedtype Survey: PixelSurvey
    /// An empty survey, to see the rows from the top.
    func newSurvey() -> Survey
    /// The stage this one works as once `survey` has seen every row of its input.
    func surveyed(by survey: Survey) throws -> any Transform
    /// The class of the stage `surveyed(by:)` makes, known before any pixel is decoded: `point`
    /// or `resample` streams (a run plans with it before the survey; a resample stage as the
    /// largest it can be, so the stage also gives `inputRows(forOutput:of:)` for that).
    /// `whole` when the stage does not survey after all (a plugin's stage that cannot): it then
    /// runs on the whole picture.
    var surveyedClass: StageClass { get }
    /// Whether the size the stage makes depends on the pixels (`trim`): `outputSize(for:)` is
    /// then the largest it may make, `explain` says "at most", and the plan after it is an
    /// estimate. False unless the stage says so.
    var sizeIsUpperBound: Bool { get }
}

extension SurveyingStage {
    public var sizeIsUpperBound: Bool { false }
}

extension Transform {
    /// Whether this is a `SurveyingStage` that surveys (its `surveyedClass` is not `whole`).
    public var surveys: Bool { (self as? any SurveyingStage).map { $0.surveyedClass != .whole } ?? false }

    /// Whether this is a `SurveyingStage` that has not surveyed yet: its class is still `whole`
    /// (the stage its survey makes is not).
    public var awaitsSurvey: Bool { surveys && stageClass == .whole }
}

/// What a `SurveyingStage` gathers from the rows of its input, strip after strip, top to bottom.
public protocol PixelSurvey {
    /// Looks at `rows` (RGB, or RGBA after a stage that adds alpha), which lie at `position` in the picture.
    mutating func look(at rows: Image, at position: StripPosition) throws
}
