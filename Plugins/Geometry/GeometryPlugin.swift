import ImagePipeCore

/// The geometry family: resize, crop, extend, trim, flip and flop.
public enum GeometryPlugin {
    public static let plugin = Plugin(
        name: "geometry", summary: "Resize, crop, extend, trim, flip and flop (after sharp and libvips)",
        stages: [ResizeStage.self, CropStage.self, ExtendStage.self, TrimStage.self, FlipStage.self, FlopStage.self])
}
