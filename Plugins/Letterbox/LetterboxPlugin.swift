import ImagePipeCore

/// Seed 004's centred letterboxing.
public enum LetterboxPlugin {
    public static let plugin = Plugin(name: "letterbox", summary: "Letterboxing: a picture centered on a fixed-size canvas (seed 004)", stages: [LetterboxStage.self])
}
