import ImagePipeCore

/// Seed 004's fit-to-screen zoom.
public enum FitZoomPlugin {
    public static let plugin = Plugin(name: "fit-zoom", summary: "Fit-to-screen zoom (seed 004)", stages: [FitStage.self])
}
