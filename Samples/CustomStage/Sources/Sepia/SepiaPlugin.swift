import ImagePipeCore

/// The plugin: the stages this package contributes.
public enum SepiaPlugin {
    public static let plugin = Plugin(name: "sepia", summary: "Sepia toning and a vignette (a sample third-party plugin)", stages: [SepiaStage.self, VignetteStage.self])
}
