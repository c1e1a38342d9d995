/// What a run knows beyond the pipeline text: the input and output named on the command line
/// (used by `load` and `save` when they name no file), and where warnings go.
public struct RunContext: Sendable {
    /// The input file, `-` for standard input, or nil.
    public var input: String?
    /// The bytes of the input when it is `-` (standard input, read once by the caller).
    public var inputBytes: [UInt8]?
    /// The output file, `-` for standard output, or nil.
    public var output: String?
    /// The output format asked for on the command line (`--format`), if any.
    public var outputFormat: ImageFormat?
    /// Limits and switches for decoding that the command line sets.
    public var loadOptions: LoadOptions
    /// Receives warnings (e.g. alpha flattened for JPEG); the command prints them on stderr.
    public var warn: @Sendable (String) -> Void

    public init(input: String? = nil, inputBytes: [UInt8]? = nil, output: String? = nil, outputFormat: ImageFormat? = nil,
                loadOptions: LoadOptions = LoadOptions(), warn: @escaping @Sendable (String) -> Void = { _ in }) {
        self.input = input
        self.inputBytes = inputBytes
        self.output = output
        self.outputFormat = outputFormat
        self.loadOptions = loadOptions
        self.warn = warn
    }
}
