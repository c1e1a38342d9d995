import ImagePipePluginKit
import Sepia

/// What the stock `imagepipe --plugin libSepiaPlugin.so` looks for.
@_cdecl("imagepipe_plugin_entry")
public func imagepipePluginEntry() -> UnsafeRawPointer {
    PluginExport.table(for: SepiaPlugin.plugin)
}
