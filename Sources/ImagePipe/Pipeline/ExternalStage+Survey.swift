import CImagePipePlugin

/// A plugin's stage that must see every row before it makes any (its table's `survey`): a streamed run reads
/// the picture once for its survey, then through the stage the survey made, as it does a
/// compiled-in `SurveyingStage`. A stage whose traits say no survey, or whose plugin lacks the
/// fields, has the surveyed class `whole` and runs on the whole picture.
extension ExternalStage: SurveyingStage {
    var surveyedClass: StageClass {
        guard surveyFields != nil else { return .whole }
        if traits & IMAGEPIPE_STAGE_SURVEYS_TO_POINT != 0 { return .point }
        // The run plans a resample stage's windows before the survey, through input_rows.
        if traits & IMAGEPIPE_STAGE_SURVEYS_TO_RESAMPLE != 0, inputRowsOf != nil { return .resample }
        return .whole
    }

    func newSurvey() -> ExternalSurvey { ExternalSurvey(of: self) }

    func surveyed(by survey: ExternalSurvey) throws -> any Transform {
        // What the stage noted as its survey ended comes with the stage it made.
        let made = try survey.finish()
        return ExternalStage(table: Table(pointer: handle.table), schema: stageSchema, arguments: arguments, made: made)
    }
}
