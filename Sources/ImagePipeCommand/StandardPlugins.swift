import ImagePipe

/// The stages the stock `imagepipe` knows: the core ones and every plugin under `Plugins/`.
public enum StandardPlugins {
    public static let all: [Plugin] = [Registry.core]

    /// A registry holding all of them.
    public static var registry: Registry { Registry(plugins: all) }
}
