/// How a picture is decoded, and the limits that hold before the work they bound.
public struct LoadOptions: Hashable, Sendable {
    /// Turn the picture as its EXIF orientation tag says (what every viewer shows).
    public var applyOrientation: Bool
    /// Refuse pictures with more pixels than this, judged from the header before decoding;
    /// nil for no limit. The default equals Pillow's decompression-bomb error threshold.
    public var maxPixels: Int?
    /// Refuse animations with more frames to decode than this (nil: no limit), as imgproxy limits
    /// animation frames; the pixel limit then counts every frame decoded.
    public var maxFrames: Int? = LoadOptions.defaultMaxFrames
    /// Let the decoder shrink while decoding so that the (oriented) picture is no smaller than
    /// this on either side: JPEG decodes at 1/2, 1/4 or 1/8 in the DCT. nil decodes at full size.
    public var atLeast: Size?
    /// The rectangle of the decode (as stored, at the size `atLeast` gives) that the run reads
    /// (`Plan.decodeRegion`): a decoder may pass over what lies outside, its pixels undefined (a
    /// TIFF's strips and tiles; a JPEG's rows and columns, left black). nil: all of it.
    public var region: Rect?

    /// The rows of a `size` decode that `region` covers: all of them without one.
    func rowsRead(of size: Size) -> Range<Int> {
        guard let region else { return 0..<size.height }
        return (0..<size.height).clamped(to: region.y..<(region.y + region.height))
    }
    /// Let a decoder that can (a JPEG's, in its planes) resample the whole picture to this size
    /// (the picture's as decoded, EXIF orientation applied when it is) and kernel as it decodes
    /// (`Plan.decodeResampling`). nil decodes at the DCT's size.
    public var decodeResampling: WholeResampling?

    /// Whether a plan may decode reduced when its first stage only shrinks (`Pipeline.plan`).
    public var shrinkOnLoad: Bool
    /// How much damage in the data is an error, as libvips' `fail_on`.
    public var failOn: FailOn
    /// The speed/quality choice: how far shrink-on-load goes and the kernel stages default to.
    public var scaling: ScalingMode

    /// Refuse input of more bytes than this (a file by its size before reading, a stream or
    /// device as it is read); nil for no limit.
    public var maxInputBytes: Int?
    /// The formats that may be decoded: recognised by their first bytes before any loader runs.
    public var allowedFormats: Set<ImageFormat>
    /// Whether pictures with a color profile are converted to sRGB (the default) or kept as they are.
    public var color: ColorHandling
    /// The rendering intent of that conversion.
    public var intent: RenderingIntent
    /// When decoding must stop: checked between chunks of data fed to a decoder. (The command's
    /// `--timeout` also abandons a decode stuck inside one chunk; see the command's BatchRunner.)
    public var deadline: ContinuousClock.Instant?
    /// The command that decodes the formats outside `ImageFormat.vetted` in a process of its
    /// own (`IsolatedDecoder`), followed by its arguments; nil decodes them here. The
    /// `imagepipe` command sets itself; an embedding program may set a helper of its own that
    /// calls `IsolatedDecoder.childMain`.
    public var isolatedDecoder: [String]?

    /// The options of the run in progress, for stages that decode pictures of their own
    /// (`composite`'s overlay): `Pipeline.run` puts its source's options in the stages'
    /// `StageContext`, so the run's format allowlist and limits hold for every file it reads.
    /// Outside a run, the defaults.
    public static var current: LoadOptions { StageContext.current.loadOptions as? LoadOptions ?? LoadOptions() }

    public static let defaultMaxPixels = StageContext.defaultMaxPixels
    public static let defaultMaxFrames = 1_000
    /// 256 MiB: four times the largest camera JPEG, far below what exhausts memory.
    public static let defaultMaxInputBytes = 256 << 20

    public init(applyOrientation: Bool = true, maxPixels: Int? = LoadOptions.defaultMaxPixels, atLeast: Size? = nil,
                shrinkOnLoad: Bool = true, failOn: FailOn = .error, scaling: ScalingMode = .good,
                maxInputBytes: Int? = LoadOptions.defaultMaxInputBytes, allowedFormats: Set<ImageFormat> = ImageFormat.vetted,
                deadline: ContinuousClock.Instant? = nil, color: ColorHandling = .srgb, intent: RenderingIntent = .perceptual) {
        self.color = color
        self.intent = intent
        self.scaling = scaling
        self.shrinkOnLoad = shrinkOnLoad
        self.failOn = failOn
        self.applyOrientation = applyOrientation
        self.maxPixels = maxPixels
        self.atLeast = atLeast
        self.maxInputBytes = maxInputBytes
        self.allowedFormats = allowedFormats
        self.deadline = deadline
    }

    /// Whether damage of `level` (what a decoder found: data cut short, damaged, or a warning)
    /// makes the decode fail.
    public func refuses(_ level: FailOn) -> Bool { level != .none && failOn >= level }

    /// Whether the decode fails on damaged or cut data, for decoders that cannot tell the two apart.
    var failOnDamage: Bool { refuses(.truncated) }

    /// Whether `format` is decoded in a process of its own (`isolatedDecoder`).
    func isolates(_ format: ImageFormat) -> Bool { isolatedDecoder != nil && !ImageFormat.vetted.contains(format) }

    /// Throws when the deadline has passed.
    func checkDeadline(path: String?) throws(ImageError) {
        if let deadline, ContinuousClock.now > deadline { throw ImageError(.timedOut, path: path, reason: "decoding went past the time limit") }
    }
}
