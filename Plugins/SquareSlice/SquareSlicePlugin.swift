import ImagePipe

/// Seed 001's square-slice crop.
public enum SquareSlicePlugin {
    public static let plugin = Plugin(name: "square-slice", summary: "Project NP's slice crop (seed 001)", stages: [SliceStage.self])
}
