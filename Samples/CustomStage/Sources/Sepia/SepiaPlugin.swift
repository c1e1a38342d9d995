import ImagePipeCore

/// The plugin: the stages this package contributes.
public enum SepiaPlugin {
    public static let plugin = Plugin(name: "sepia", summary: "Sepia toning, a vignette, a box blur and a square crop (a sample third-party plugin)",
                                      stages: [SepiaStage.self, VignetteStage.self, SoftenStage.self, SquareStage.self])
}
