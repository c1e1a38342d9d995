import ImagePipeCore

/// The circular-crop plugin of seed 000: the even-odd mask, the avatar cut-out and the editor.
public enum CircleCropPlugin {
    public static let plugin = Plugin(
        name: "circle-crop", summary: "Circular avatar crop, mask and crop-editor screen (seed 000)",
        stages: [CircleMaskStage.self, CircleCropStage.self, CropEditorStage.self])
}
