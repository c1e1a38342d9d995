/// `load [path] [auto-orient=true]`: decodes a picture file; the first stage of a pipeline.
public struct Load: ImageSource, DeclaredStage {
    public static let declaration = StageDeclaration(
        "load", summary: "Read a picture file (JPEG, PNG, WebP, GIF, TIFF, BMP, AVIF, HEIF, JPEG XL (.jxl); others with --allow-format)", example: "load auto-orient=false", start: Load(), [
            Param(\.path, "path", .path, positional: true,
                  help: "The file to read; without it, the input given on the command line."),
            Param(\.autoOrient, "auto-orient", .boolean, default: true,
                  help: "Turn the picture as its EXIF orientation says; false keeps the stored orientation."),
            Param(\.failOn, "fail", .choice(FailOn.self), default: .error,
                  help: "How much damage in the data is an error, as libvips' fail-on: none takes what the decoder makes of it; truncated refuses data that ends early (a cut file, a compressed stream that stops before the last row); error (the default; also written true) also refuses damaged data (a failed checksum, corrupt JPEG, PNG, LZW or VP8 data); warning also refuses what a decoder only warns of (a damaged ancillary PNG chunk, a libtiff or libjpeg warning). false is none."),
            Param(\.scaling, "scaling", .choice(ScalingMode.self),
                  help: "Speed against quality for this pipeline, overriding the run's --scaling (default good): fast decodes at the tightest reduction (a JPEG's DCT scaling, a TIFF pyramid's level), good keeps 2× headroom, best decodes at full size; each then scales with lanczos3 unless a stage names a kernel."),
            Param(\.color, "color", .choice(ColorHandling.self), default: .srgb,
                  help: "srgb converts a picture with an embedded ICC profile (Display P3, Adobe RGB, CMYK, gray) to sRGB with Little CMS, as sharp does; keep leaves RGB pixels in their profile and carries it to save (CMYK and gray are converted all the same: pictures are held as RGB)."),
            Param(\.intent, "intent", .choice(RenderingIntent.self), default: .perceptual,
                  help: "The rendering intent of that conversion: perceptual as sharp (libvips' own default is relative; the two differ only for profiles with gamut tables, such as CMYK)."),
            Param(\.frames, "frames", Load.framesKind, auto: true,
                  help: "An animated GIF's, WebP's, PNG's (APNG) or AVIF sequence's frames, counted from 0: all, first, one frame N, or a range A-B. Each frame is composed as a viewer shows it and goes through every stage; sizes are planned once for the canvas, and a stage that decides from the pixels (trim, normalize, a smart crop) decides on the first frame, so the frames stay aligned. auto is all when the output and every tee's file are GIF, WebP, AVIF or PNG (and there is no branch), else the first frame."),
        ])

    /// `frames`' values: a word or frame numbers (`FrameSelection`).
    static let framesKind = ParameterKind<FrameSelection>(.string, value: { .string($0.description) }) { value in
        if case let .string(text) = value { FrameSelection(text: text) } else { nil }
    }

    public func check() throws(ArgumentError) {
        if case let .invalid(text) = frames {
            throw ArgumentError.parameter("frames", "frames: '\(text)' names no frames; give all, first, a frame number (0 is the first) or a range like 2-5")
        }
    }

    public var path: String?
    public var autoOrient: Bool
    public var failOn: FailOn
    /// nil: the run's choice.
    public var scaling: ScalingMode?
    public var color: ColorHandling
    public var intent: RenderingIntent
    /// nil: all frames when the output holds an animation, else the first.
    public var frames: FrameSelection?

    public init(path: String? = nil, autoOrient: Bool = true, failOn: FailOn = .error, scaling: ScalingMode? = nil,
                color: ColorHandling = .srgb, intent: RenderingIntent = .perceptual, frames: FrameSelection? = nil) {
        self.frames = frames
        self.color = color
        self.intent = intent
        self.path = path
        self.autoOrient = autoOrient
        self.failOn = failOn
        self.scaling = scaling
    }

    func resolvedPath(in context: RunContext) throws -> String {
        guard let path = path ?? context.input else {
            throw StageError("no input: name a file after the pipeline, or give load a path")
        }
        return path
    }

    public func loadOptions(in context: RunContext) -> LoadOptions {
        var options = context.loadOptions
        options.applyOrientation = autoOrient
        options.failOn = failOn
        options.color = color
        options.intent = intent
        if let scaling { options.scaling = scaling }
        return options
    }

    private func options(in context: RunContext, atLeast: Size?, resampling: WholeResampling? = nil) -> LoadOptions {
        var options = loadOptions(in: context)
        options.atLeast = atLeast
        options.decodeResampling = resampling
        return options
    }

    public var filesRead: [String] { path.map { [$0] } ?? [] }

    /// The input's bytes read beforehand, when the path is `-` (standard input) or the run's
    /// input that was read ahead because it can be read only once (a FIFO, a device).
    private func standardInput(for path: String, in context: RunContext) throws -> [UInt8]? {
        if path != "-", let bytes = context.inputBytes, path == context.input { return bytes }
        guard path == "-" else { return nil }
        guard let bytes = context.inputBytes else { throw StageError("reading standard input needs its bytes in the run context") }
        return bytes
    }

    public func describe(in context: RunContext) throws -> SourceDescription {
        let path = try resolvedPath(in: context)
        var header: ImageHeader
        if let bytes = try standardInput(for: path, in: context) {
            do { header = try ImageHeader.read(bytes: bytes, options: context.loadOptions) } catch var error as ImageError {
                error.path = path
                throw error
            }
        } else {
            header = try ImageHeader.read(path: path, options: context.loadOptions)
        }
        try header.checkPixels(limit: context.loadOptions.maxPixels, path: path)
        return SourceDescription(size: header.decodedSize(applyingOrientation: autoOrient), header: header,
                                 orientation: autoOrient ? header.orientation : 1)
    }

    /// The frames of the animation this load reads, one at a time (`Pipeline.runAnimated`);
    /// `format` and `canvas` are what its header said.
    public func animation(in context: RunContext, format: ImageFormat, canvas: Size? = nil) throws -> any AnimationDecoder {
        let path = try resolvedPath(in: context)
        let options = loadOptions(in: context)
        do {
            let decoder = if let bytes = try standardInput(for: path, in: context) {
                try AnimationDecoding.decoder(for: bytes, format: format, canvas: canvas, failOnDamage: options.failOnDamage, path: path)
            } else {
                try AnimationDecoding.decoder(path: path, format: format, canvas: canvas, options: options, failOnDamage: options.failOnDamage)
            }
            guard let decoder else { throw ImageError(.unsupported, path: path, reason: "\(format.displayName) holds no animation") }
            return decoder
        } catch var error as ImageError {
            error.path = path
            throw error
        }
    }

    /// What a load says of a profile dropped for its size (`ICCProfile.maxBytes`).
    static func profileWarning(_ path: String) -> String {
        "\(path): its ICC profile is larger than \(ICCProfile.maxBytes >> 20) MiB, the largest read (real ones are under 1 MB); ignored: the pixels are taken as sRGB"
    }

    public func load(in context: RunContext, description: SourceDescription?, atLeast: Size?) throws -> Image {
        try load(in: context, description: description, atLeast: atLeast, resampling: nil)
    }

    /// `load(in:description:atLeast:)`, letting a JPEG's decoder resample the whole picture as
    /// it decodes (`LoadOptions.decodeResampling`): what a plan with `decodeResampling` asks;
    /// and letting the decoder pass over what lies outside `region` (`Plan.decodeRegion`).
    public func load(in context: RunContext, description: SourceDescription?, atLeast: Size?, resampling: WholeResampling?,
                     region: Rect? = nil) throws -> Image {
        let path = try resolvedPath(in: context)
        var options = options(in: context, atLeast: atLeast, resampling: resampling)
        options.region = region
        let image = try decoded(path: path, options: options, header: description?.header, in: context)
        if image.metadata.profileTooLarge {
            context.warn(Self.profileWarning(path))
        }
        return Self.toldOfDecodeWarnings(image, path: path, in: context)
    }

    /// The picture at `path` (or standard input's) decoded whole, upright and in sRGB, its
    /// decoder's warnings not yet told: the ordinary run's load, and the source of a streamed
    /// run whose decoder gives only whole pictures.
    func decoded(path: String, options: LoadOptions, header: ImageHeader?, in context: RunContext) throws -> Image {
        guard let bytes = try standardInput(for: path, in: context) else { return try Image.load(path: path, options: options, header: header) }
        do { return try Image.decode(bytes, options: options) } catch var error as ImageError {
            error.path = path
            throw error
        }
    }

    /// `image` without its decoder's warnings (`ImageMetadata.decodeWarnings`), once the run was
    /// told of them: the picture was read all the same, and a later output has nothing to do with them.
    static func toldOfDecodeWarnings(_ image: Image, path: String, in context: RunContext) -> Image {
        guard !image.metadata.decodeWarnings.isEmpty else { return image }
        for warning in image.metadata.decodeWarnings { context.warn("\(path): \(warning); read all the same") }
        var metadata = image.metadata
        metadata.decodeWarnings = []
        return image.withMetadata(metadata)
    }
}
