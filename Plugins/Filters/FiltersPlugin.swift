import ImagePipeCore

/// Neighbourhood filters: Gaussian blur, unsharp mask, median and any convolution kernel.
public enum FiltersPlugin {
    public static let plugin = Plugin(name: "filters", summary: "Blur, sharpen, median and convolution filters",
                                      stages: [BlurStage.self, SharpenStage.self, MedianStage.self, ConvolveStage.self])
}
