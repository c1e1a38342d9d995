import Alpha
import AnchorRotate
import CircleCrop
import Compose
import Filters
import FitZoom
import Geometry
import ImagePipe
import Letterbox
import SquareSlice
import Tone

/// The stages the stock `imagepipe` knows: the core ones and every plugin under `Plugins/`.
public enum StandardPlugins {
    public static let all: [Plugin] = [
        Registry.core, FitZoomPlugin.plugin, LetterboxPlugin.plugin, SquareSlicePlugin.plugin,
        CircleCropPlugin.plugin, AnchorRotatePlugin.plugin, GeometryPlugin.plugin, TonePlugin.plugin,
        FiltersPlugin.plugin, AlphaPlugin.plugin, ComposePlugin.plugin,
    ]

    /// A registry holding all of them.
    public static var registry: Registry { Registry(plugins: all) }

    /// A compiler over that registry.
    public static var compiler: PipelineCompiler { PipelineCompiler(registry: registry) }
}
