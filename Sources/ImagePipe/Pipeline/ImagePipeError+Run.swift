extension PipelineError: ImagePipeError {}

extension RegistryError: ImagePipeError {
    public var message: String { description }
}

extension PluginLoadError: ImagePipeError {
    public var message: String { description }
}
