/// A step of a pipeline: a value type built from validated arguments, described by its schema.
///
/// A stage never sees argument text: the schema parses and checks it, then `init(arguments:)`
/// builds the stage and may add checks across parameters (throwing `ArgumentError`). Stages
/// written in Swift are `DeclaredStage`s: their schema, `init(arguments:)` and `arguments` come
/// from one declaration of their parameters.
public protocol Stage: Sendable, Equatable {
    static var schema: Schema { get }
    init(arguments: Arguments) throws
    /// The stage's arguments, from which its canonical text is made.
    var arguments: Arguments { get }
    /// This stage's schema: `Self.schema`, except for stages whose interface is known only at
    /// run time (from plugins loaded then).
    var stageSchema: Schema { get }
    /// The files the stage reads (a source's picture, an overlay, a profile), so that no output
    /// of the run replaces one of them unless the user says so (`--overwrite`). None unless the
    /// stage says.
    var filesRead: [String] { get }
    /// The canonical pipeline text of this stage; it parses back to an equal stage. Its
    /// arguments' text, unless the stage holds more (a `branch` its groups).
    var text: String { get }
    /// What the stage as written will do that its user may not expect, known before any picture
    /// (text with characters no installed font draws): each run warns of it, and lists it among
    /// the stage's notes. None unless the stage says.
    var warnings: [String] { get }
}

extension Stage {
    public var stageSchema: Schema { Self.schema }
    public var filesRead: [String] { [] }
    public var warnings: [String] { [] }
    public var text: String { stageSchema.canonicalText(of: arguments) }

    /// The stage built from argument text, as the pipeline language would build it.
    public static func parse(_ raw: [RawArgument]) throws -> Self {
        try make(arguments: schema.arguments(from: raw))
    }

    /// The stage built from validated arguments; its own checks' messages get the stage's
    /// name in front, as the schema's do.
    public static func make(arguments: Arguments) throws -> Self {
        do {
            return try Self(arguments: arguments)
        } catch var error as ArgumentError {
            error.message = "\(schema.name): \(error.message)"
            throw error
        }
    }

    /// Checks a stage exactly as the language checks one it reads, wherever it came from (a
    /// stage made in code with `ResizeStage(…)` skips the parser): each argument written as text
    /// and read back by the schema (ranges, kinds, required values), then the stage's own checks
    /// across them. Pipelines check every stage before they plan or run.
    public func validate() throws(ArgumentError) {
        let schema = stageSchema, arguments = self.arguments
        let written = schema.parameters.compactMap { parameter in
            arguments[parameter.name].map { RawArgument(key: parameter.name, parameter.type.format($0)) }
        }
        _ = try schema.arguments(from: written)
        try (self as? any DeclaredStage)?.check()
    }

    /// Equality with a stage of any type.
    public func isEqual(to other: any Stage) -> Bool {
        (other as? Self) == self
    }
}

/// A stage that maps one image to another.
public protocol Transform: Stage {
    /// The size `apply` will produce from an input of `input` size, computed without pixels.
    /// Throws `StageError` when the geometry is impossible (a crop outside the picture).
    func outputSize(for input: Size) throws -> Size
    /// Whether the output size depends on the pixels (`trim`): `outputSize(for:)` is then the
    /// largest size `apply` may give, and the plan after this stage an estimate. False for
    /// every stage whose geometry the header decides.
    var outputSizeIsUpperBound: Bool { get }
    func apply(to image: Image) throws -> Image
    /// What the stage will do to a picture of this size, in a few words, for `imagepipe explain`
    /// (scale factors, crop rectangles, circles); nil when the sizes say it all.
    func explanation(for input: Size) throws -> String?
    /// Bytes the stage holds beside its input and output picture while it applies to one of
    /// `input` size: a text's drawn layout, an overlay and its scaled copy. Worked out without
    /// pixels, like `outputSize(for:)`, so that a memory budget counts them before the work
    /// (`Plan.estimatedPeakBytes`); throws `StageError` when that work is refused. 0 unless the
    /// stage says so.
    func heldBytes(for input: Size) throws -> Int
    /// The smallest picture that gives this stage's full-quality output from a picture of
    /// `input` size, when it only shrinks: the planner may then decode the source reduced (JPEG
    /// scales in the DCT) and call `apply(to:)` with a `ReducedImage`. nil when every pixel is
    /// needed.
    func reducedInput(for input: Size) throws -> Size?
    /// When the stage's whole work on a picture of `input` size is resampling all of it to a
    /// smaller size (no crop, no mask, no linear light): that size and kernel, so that a decoder
    /// that resamples as it decodes (a JPEG's planes) may do the work in the stage's place; the
    /// stage is then given a decode of its output's size, mapped onto the picture whole, which
    /// it passes on as it is. nil (the default) when the stage does more.
    func wholeResampling(for input: Size) throws -> WholeResampling?
    /// Applies the stage to a decode that may be smaller than the picture it stands for: the
    /// geometry is worked out for `source.fullSize`, then mapped onto the decode's pixels
    /// through `source.map`, exactly.
    func apply(to source: ReducedImage) throws -> Image
    /// How output rows depend on input rows (`StageClass`): what lets the run work in strips.
    /// `whole` unless the stage says more: `point` when each output row is made from the same
    /// input row alone, at the same size (tone curves, color changes), an area filter its radius,
    /// a crop or a scale `resample`. A promise the stage makes: tests hold every stage that makes
    /// it to the same pixels on strips as on the whole picture.
    var stageClass: StageClass { get }
    /// A point stage's output for `strip`, rows of the picture at `position`: what the streamed
    /// run asks of every point stage, strip after strip. The default is `apply(to:)`, for stages
    /// whose rows do not depend on where they lie; a stage whose rows do (a vignette, an overlay
    /// at a place) works out its geometry on `position.pictureSize` and makes the strip's rows
    /// of it, and its `apply(to:)` is this at `.whole(image.size)`.
    func apply(to strip: Image, at position: StripPosition) throws -> Image
    /// An area stage's output rows `rows` of `window`, the input rows `radius` above and below
    /// them (fewer at the picture's edges, which the window's edges then are): an image of just
    /// those rows. The default makes the whole window and keeps those rows; a filter can make
    /// only them (`Convolution.apply(to:rows:finish:)`), which is what the streamed run asks of
    /// every area stage, strip after strip.
    func apply(toWindow window: Image, rows: Range<Int>) throws -> Image
    /// The input rows (in the whole input picture's coordinates, inside `0..<inputSize.height`)
    /// that output `rows` are made from: what the streamed run hands `apply(toWindow:windowTop:
    /// inputSize:outputRows:)`. A `resample` stage must say; the default is `rows` for a point
    /// stage, the rows `radius` around them (clamped to the picture) for an area stage, and the
    /// whole input for a whole stage.
    func inputRows(forOutput rows: Range<Int>, inputSize: Size) throws -> Range<Int>
    /// Output `outputRows` (full output width) made from `window`, the input rows
    /// `windowTop..<windowTop + window.height` at full input width, which are exactly
    /// `inputRows(forOutput: outputRows, inputSize:)`; `inputSize` is the whole input's. The
    /// streamed run asks this of every `area` and `resample` stage, strip after strip, and holds
    /// the rows to the whole picture's `apply(to:)` byte for byte (tests do). A `resample` stage
    /// must say, and so must an area stage whose rows depend on where they lie; the default works
    /// any other class out from the methods above.
    func apply(toWindow window: Image, windowTop: Int, inputSize: Size, outputRows: Range<Int>) throws -> Image
    /// `inputRows(forOutput:inputSize:)` for the first stage of a streamed run whose decode was
    /// reduced for it (`reducedInput`): rows of the decode, `reduction.decodedSize` large, for
    /// output planned on `reduction.fullSize`. A resample stage that gives a `reducedInput` says,
    /// and the run then streams its reduced decode; the default takes only a full decode (a
    /// reduced one is then decoded whole, for `apply(to: ReducedImage)`).
    func inputRows(forOutput rows: Range<Int>, reduction: DecodeReduction) throws -> Range<Int>
    /// `apply(toWindow:windowTop:inputSize:outputRows:)` on rows of a reduced decode, which are
    /// exactly `inputRows(forOutput: outputRows, reduction:)`; the rows are those of
    /// `apply(to: ReducedImage)` on the whole decode, byte for byte.
    func apply(toWindow window: Image, windowTop: Int, reduction: DecodeReduction, outputRows: Range<Int>) throws -> Image
    /// Whether every output pixel is gray (R = G = B) whatever the input: when no stage changes
    /// the picture after this one (a `tee` passes it on as it was), JPEG is written with one
    /// gray component. False unless the stage says so.
    var makesGray: Bool { get }
    /// Whether the stage's output has an alpha channel, from whether its input has: what the
    /// streamed run sizes each level's rows by (RGB, or RGBA once a stage adds alpha). The
    /// default keeps the input's; a stage that adds alpha (a circle cut out, `ensure-alpha`) or
    /// drops it (`flatten`) says so.
    func outputHasAlpha(inputHasAlpha: Bool) -> Bool
    /// What the stage does to a picture of `input` size when it only moves whole pixels (a
    /// quarter turn, a mirror, a crop), so that a JPEG may be turned or cut without decoding
    /// (`save lossless=`); nil when it makes new pixels. A promise the stage makes: tests hold
    /// each such stage's `apply` to the same pixels moved.
    func rearrangement(for input: Size) throws -> PixelRearrangement?
}

extension Transform {
    public func rearrangement(for input: Size) throws -> PixelRearrangement? { nil }
    public var outputSizeIsUpperBound: Bool { false }
    public var stageClass: StageClass { .whole }

    public func apply(to strip: Image, at position: StripPosition) throws -> Image { try apply(to: strip) }

    public func apply(toWindow window: Image, rows: Range<Int>) throws -> Image {
        let made = try apply(to: window)
        return rows == 0..<made.height ? made : try made.cropped(to: Rect(x: 0, y: rows.lowerBound, width: made.width, height: rows.count))
    }

    public func inputRows(forOutput rows: Range<Int>, inputSize: Size) throws -> Range<Int> {
        try defaultInputRows(forOutput: rows, inputSize: inputSize)
    }

    /// What `inputRows(forOutput:inputSize:)` is unless the stage says more: each class's rows.
    public func defaultInputRows(forOutput rows: Range<Int>, inputSize: Size) throws -> Range<Int> {
        switch stageClass {
        case .point: rows
        case let .area(radius): max(0, rows.lowerBound - radius)..<min(inputSize.height, rows.upperBound + radius)
        case .whole: 0..<inputSize.height
        // Thrown, not trapped: a stage author's slip is a refusal naming the stage, in every build.
        case .resample: throw StageError("\(stageSchema.name) says it is a resample stage, so it must say which input rows its output rows need (inputRows(forOutput:inputSize:)); a bug in the stage")
        }
    }

    public func apply(toWindow window: Image, windowTop: Int, inputSize: Size, outputRows: Range<Int>) throws -> Image {
        try defaultApply(toWindow: window, windowTop: windowTop, inputSize: inputSize, outputRows: outputRows)
    }

    public func inputRows(forOutput rows: Range<Int>, reduction: DecodeReduction) throws -> Range<Int> {
        guard reduction.isFull else { throw StageError("\(stageSchema.name) takes a reduced decode whole, not in strips") }
        return try inputRows(forOutput: rows, inputSize: reduction.fullSize)
    }

    public func apply(toWindow window: Image, windowTop: Int, reduction: DecodeReduction, outputRows: Range<Int>) throws -> Image {
        guard reduction.isFull else { throw StageError("\(stageSchema.name) takes a reduced decode whole, not in strips") }
        return try apply(toWindow: window, windowTop: windowTop, inputSize: reduction.fullSize, outputRows: outputRows)
    }

    /// What `apply(toWindow:windowTop:inputSize:outputRows:)` does unless the stage says more:
    /// each class's output rows from the stage's other methods.
    public func defaultApply(toWindow window: Image, windowTop: Int, inputSize: Size, outputRows: Range<Int>) throws -> Image {
        switch stageClass {
        case .point: return try apply(to: window, at: StripPosition(top: windowTop, pictureSize: inputSize))
        case .area: return try apply(toWindow: window, rows: (outputRows.lowerBound - windowTop)..<(outputRows.upperBound - windowTop))
        case .whole:
            let made = try apply(to: window)
            return outputRows == 0..<made.height ? made
                : try made.cropped(to: Rect(x: 0, y: outputRows.lowerBound, width: made.width, height: outputRows.count))
        case .resample: throw StageError("\(stageSchema.name) says it is a resample stage, so it must make its output rows from a window of input rows (apply(toWindow:windowTop:inputSize:outputRows:)); a bug in the stage")
        }
    }
    public var makesGray: Bool { false }
    public func outputHasAlpha(inputHasAlpha: Bool) -> Bool { inputHasAlpha }
    public func explanation(for input: Size) throws -> String? { nil }
    public func heldBytes(for input: Size) throws -> Int { 0 }
    public func reducedInput(for input: Size) throws -> Size? { nil }
    public func wholeResampling(for input: Size) throws -> WholeResampling? { nil }

    public func apply(to source: ReducedImage) throws -> Image {
        guard source.isFull else { throw StageError("cannot work on a \(source.image.size) picture standing for \(source.fullSize)") }
        return try apply(to: source.image)
    }
}
