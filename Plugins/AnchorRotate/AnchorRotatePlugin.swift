import ImagePipeCore

/// Seed 003's rotation about an anchor point.
public enum AnchorRotatePlugin {
    public static let plugin = Plugin(name: "anchor-rotate", summary: "Rotation about an anchor point (seed 003)", stages: [RotateStage.self])
}
