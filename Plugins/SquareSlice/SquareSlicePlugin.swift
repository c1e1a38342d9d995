import ImagePipeCore

/// Seed 001's square-slice crop.
public enum SquareSlicePlugin {
    public static let plugin = Plugin(name: "square-slice", summary: "Slice crop: a fixed-size window the picture always covers (seed 001)", stages: [SliceStage.self])
}
