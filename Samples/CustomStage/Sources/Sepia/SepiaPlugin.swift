import ImagePipeCore

/// The plugin: the stages this package contributes.
public enum SepiaPlugin {
    public static let plugin = Plugin(name: "sepia", summary: "Sepia toning, a vignette, a box blur, a square crop, auto levels and a swirl (a sample third-party plugin)",
                                      stages: [SepiaStage.self, VignetteStage.self, SoftenStage.self, SquareStage.self, StretchStage.self,
                                               SwirlStage.self])
}
