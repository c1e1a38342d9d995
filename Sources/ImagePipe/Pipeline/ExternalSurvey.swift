import CGdkPixbuf
import CImagePipePlugin

/// The survey of a plugin's stage (its survey functions' `begin`), which the plugin keeps and frees when this
/// lets go of it.
struct ExternalSurvey: PixelSurvey {
    private final class Owner {
        let stage: ExternalStage
        let fields: ExternalStage.SurveyFields
        /// The plugin's survey, or why it could not begin one (said at the first look).
        let survey: Result<UnsafeMutableRawPointer, any Error>

        init(stage: ExternalStage, fields: ExternalStage.SurveyFields) {
            self.stage = stage
            self.fields = fields
            survey = Result { try stage.handle.call { error in fields.begin(stage.handle.stage, error) } }
        }

        deinit { if case let .success(survey) = survey { fields.free(survey) } }
    }

    private let owner: Owner?

    init(of stage: ExternalStage) {
        owner = stage.surveyFields.map { Owner(stage: stage, fields: $0) }
    }

    private func begun() throws -> (Owner, UnsafeMutableRawPointer) {
        guard let owner else { throw StageError("the plugin's stage does not survey") }
        return (owner, try owner.survey.get())
    }

    mutating func look(at rows: Image, at position: StripPosition) throws {
        let (owner, survey) = try begun()
        try ExternalStage.checkInterfaceSize(position.pictureSize)
        _ = try owner.stage.handle.call { error -> Bool? in
            owner.fields.look(survey, UnsafeMutableRawPointer(rows.pixbuf), Int32(position.top), Int32(position.pictureSize.width),
                              Int32(position.pictureSize.height), error) == 0 ? true : nil
        }
    }

    /// The stage the survey made, for the caller to own; what the stage noted as it finished is
    /// recorded as the run's notes.
    func finish() throws -> UnsafeMutableRawPointer {
        let (owner, survey) = try begun()
        let handle = owner.stage.handle
        var notes: UnsafeMutablePointer<CChar>?
        defer { if let notes { handle.table.pointee.free_string(notes) } }
        let made = try owner.stage.inContext { context in try handle.call { error in owner.fields.finish(survey, context, &notes, error) } }
        do {
            try owner.stage.record(notes)
        } catch {
            handle.table.pointee.destroy(made)
            throw error
        }
        return made
    }
}
