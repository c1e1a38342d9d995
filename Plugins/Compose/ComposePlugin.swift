import ImagePipe

/// The compositing family: pictures and text laid over the picture.
public enum ComposePlugin {
    public static let plugin = Plugin(
        name: "compose", summary: "Composite pictures and text over the picture (after sharp's composite and text)",
        stages: [CompositeStage.self, TextStage.self])
}
