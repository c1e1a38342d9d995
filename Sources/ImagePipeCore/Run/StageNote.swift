/// Something a stage decided from the pixels, which its plan could not say beforehand: the
/// window a smart crop chose, say. A stage records it with `StageNote.record` while it applies;
/// the pipeline gathers each stage's notes into its `StageEvent` and the `RunResult`, and the
/// command shows them in `run --json` and `explain --pixels`.
///
/// Recorded through the run's `StageContext` rather than returned with the picture, so that
/// every stage's `apply` keeps its signature and a stage that decides nothing does nothing.
public struct StageNote: Equatable, Sendable {
    /// What was decided, one word: `window`.
    public let name: String
    /// The decision in a few words, for people: `800x800+1200+340 (attention)`.
    public let text: String
    /// The decision as data, for `--json`.
    public let value: JSONValue

    public init(name: String, text: String, value: JSONValue) {
        self.name = name
        self.text = text
        self.value = value
    }

    /// The note as one JSON object: name, text and value.
    public var json: JSONValue {
        .object([("name", .string(name)), ("text", .string(text)), ("value", value)])
    }

    /// Records a note for the stage being applied; outside a pipeline's run (a stage applied
    /// on its own) nobody listens and it is dropped.
    public static func record(_ note: StageNote) {
        StageContext.current.notes?.withLock { $0.append(note) }
    }

    /// Runs `body` (one stage's apply) and returns what it recorded.
    package static func collecting<T>(_ body: () throws -> T) rethrows -> (result: T, notes: [StageNote]) {
        let notes = Locked<[StageNote]>([])
        var context = StageContext.current
        context.notes = notes
        let result = try context.bound(body)
        return (result, notes.withLock { $0 })
    }
}

extension StageNote {
    /// The window a smart crop chose, in the full picture's pixels.
    /// (Rounded to thousandths: after a reduced decode the window maps back to fractions.)
    public static func window(_ window: Region, strategy: SmartCrop.Strategy) -> StageNote {
        func short(_ value: Double) -> Double { (value * 1000).rounded() / 1000 }
        let region = Region(x: short(window.x), y: short(window.y), width: short(window.width), height: short(window.height))
        return StageNote(name: "window", text: "\(region) (\(strategy.rawValue))", value: .object([
            ("x", .number(region.x)), ("y", .number(region.y)), ("width", .number(region.width)),
            ("height", .number(region.height)), ("strategy", .string(strategy.rawValue)),
        ]))
    }
}
