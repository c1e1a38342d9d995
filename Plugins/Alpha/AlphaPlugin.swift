import ImagePipeCore

/// Adding, removing and flattening the alpha channel.
public enum AlphaPlugin {
    public static let plugin = Plugin(name: "alpha", summary: "Alpha channel: flatten, remove-alpha, ensure-alpha",
                                      stages: [FlattenStage.self, RemoveAlphaStage.self, EnsureAlphaStage.self])
}
