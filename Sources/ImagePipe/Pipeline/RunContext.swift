import Glibc

/// What a run knows beyond the pipeline text: the input and output named on the command line
/// (used by `load` and `save` when they name no file), and where warnings go.
public struct RunContext: Sendable {
    /// The input file, `-` for standard input, or nil.
    public var input: String?
    /// The bytes of the input when it is `-` (standard input, read once by the caller), or when
    /// it is a FIFO or device that the caller read ahead.
    public var inputBytes: [UInt8]?
    /// Where the input was found when it came from a directory, for `{dir}` in templates.
    public var inputRoot: String?
    /// The input's 1-based position in a batch, for `{index}`.
    public var index: Int
    /// The output file or template, `-` for standard output, or nil.
    public var output: String?
    /// Where templated and relative outputs of a batch go; they may not leave it.
    public var outputDirectory: String?
    /// The output format asked for on the command line (`--format`), if any.
    public var outputFormat: ImageFormat?
    /// Limits and switches for decoding that the command line sets.
    public var loadOptions: LoadOptions
    /// Receives warnings (e.g. alpha flattened for JPEG); the command prints them on stderr.
    public var warn: @Sendable (String) -> Void
    /// When set, outputs land only while it is open (see `OutputGate`).
    package var outputGate: OutputGate?
    /// When set and cancelled, the run stops at its next check and writes nothing.
    public var cancellation: Cancellation?
    /// When set, the run adds the processor time of its decoding and encoding to it.
    public var codecTime: CodecTime?
    /// A run streams only when its ordinary run would hold more than this in pictures
    /// (`Plan.estimatedPeakBytes` beyond `Plan.workingBytes`); 0, the default, streams whatever
    /// can be streamed. Streaming overlaps a picture's decoding with its stages and encoding on
    /// two threads, which pays when that picture is all the work there is; where other pictures
    /// keep every core busy already (a batch's jobs, the service's workers), the threads'
    /// handoffs only cost, and a picture that fits in memory is cheaper on one thread
    /// (`streamAboveBytes(picturesAtOnce:)`).
    public var streamAboveBytes = 0
    /// Runs every stage on the whole picture, never streamed: the reference a streamed run is
    /// held to byte for byte, and a way round the streamed run where it is suspected. Set by
    /// the environment variable `IMAGEPIPE_WHOLE_PICTURES=1` for a command or a service.
    public var wholePictures = RunContext.wholePicturesFromEnvironment
    /// When set, the run writes the picture after every stage into the trace (`--trace`),
    /// streamed or not, as it would run without it (an observer of whole pictures,
    /// `Pipeline.run(in:observe:)`, takes the run of whole pictures).
    public var trace: TraceWriter?

    /// Whether `IMAGEPIPE_WHOLE_PICTURES` is 1.
    static let wholePicturesFromEnvironment = getenv("IMAGEPIPE_WHOLE_PICTURES").map { String(cString: $0) } == "1"

    /// `streamAboveBytes` for runs that share busy cores: a 12-megapixel picture decoded whole
    /// (48 MiB at the estimate's 4 bytes a pixel) still runs on one thread. On the service
    /// benchmark's photos, the service made 4–8 % more requests in 10 s so (`Benchmarks/serve_cpu.sh`).
    public static let busyCoresStreamAbove = 48 << 20

    /// `streamAboveBytes` for a run among `picturesAtOnce` made at once (a batch's jobs, the
    /// service's workers): `busyCoresStreamAbove` when they are at least the cores, else 0.
    public static func streamAboveBytes(picturesAtOnce: Int) -> Int {
        picturesAtOnce >= System.coreCount ? busyCoresStreamAbove : 0
    }

    public init(input: String? = nil, inputBytes: [UInt8]? = nil, inputRoot: String? = nil, index: Int = 1,
                output: String? = nil, outputDirectory: String? = nil, outputFormat: ImageFormat? = nil,
                loadOptions: LoadOptions = LoadOptions(), warn: @escaping @Sendable (String) -> Void = { _ in }) {
        self.input = input
        self.inputBytes = inputBytes
        self.inputRoot = inputRoot
        self.index = index
        self.output = output
        self.outputDirectory = outputDirectory
        self.outputFormat = outputFormat
        self.loadOptions = loadOptions
        self.warn = warn
    }

    /// The file an output written as `path` lands in: templates filled in for this input, and
    /// inside the output directory when there is one.
    public func resolveOutput(_ path: String) throws(StageError) -> String {
        guard path != "-" else { return path }
        var resolved = path
        if OutputTemplate.isTemplate(path) {
            guard let input else { throw StageError("the output template '\(path)' needs an input file") }
            resolved = try OutputTemplate.expand(path, input: input, inputRoot: inputRoot, index: index)
        }
        if let outputDirectory { resolved = try OutputTemplate.place(resolved, in: outputDirectory) }
        return resolved
    }
}
