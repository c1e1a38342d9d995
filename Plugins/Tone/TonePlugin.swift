import ImagePipeCore

/// Point operations on colour and tone: each pixel's new colour depends on its own colour only
/// (and, for `normalize`, on the picture's histogram). 8-bit in and out, Float or tables of the
/// exact result inside; alpha is never changed.
public enum TonePlugin {
    public static let plugin = Plugin(name: "tone", summary: "Color and tone: grayscale, modulate, gamma, linear, normalize, negate, tint, threshold",
                                      stages: [GrayscaleStage.self, ModulateStage.self, GammaStage.self, LinearStage.self,
                                               NormalizeStage.self, NegateStage.self, TintStage.self, ThresholdStage.self])
}
