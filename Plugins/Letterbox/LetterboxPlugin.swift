import ImagePipe

/// Seed 004's centred letterboxing.
public enum LetterboxPlugin {
    public static let plugin = Plugin(name: "letterbox", summary: "Centred letterboxing (seed 004)", stages: [LetterboxStage.self])
}
