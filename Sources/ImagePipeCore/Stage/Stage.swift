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

/// A stage that maps one picture to another: a stage of a class (`StageClass`: point, area,
/// resample or whole) with one method that makes output rows from the input rows the class says
/// they need (`makeRows(_:from:)`), as a GEGL operation has one `process()` and a libvips
/// operation one generate function. What else a stage may do (be decoded for at a reduced size,
/// move pixels losslessly, survey its input, warp it) it declares apart, through
/// `ShrinkOnLoadStage`, `RearrangingStage`, `SurveyingStage` and `WarpingStage`.
public protocol Transform: Stage {
    /// The size the stage makes from an input of `input` size, computed without pixels. Throws
    /// `StageError` when the geometry is impossible (a crop outside the picture).
    func outputSize(for input: Size) throws -> Size
    /// How output rows depend on input rows: what lets a run work in strips. `whole` unless the
    /// stage says more: `point` when each output row is made from the same input row alone, at
    /// the same size (tone curves, color changes), an area filter its radius, a crop or a scale
    /// `resample`. A promise the stage makes: the conformance harness (`StageConformance`) holds
    /// every stage to the same pixels in strips as on the whole picture.
    var stageClass: StageClass { get }
    /// The input rows output `rows` are made from, in the coordinates of `input`'s decoded
    /// picture (inside `0..<input.decodedSize.height`). `input` is the whole input: its size,
    /// and for the first stage of a run whose decode was reduced for it (`ShrinkOnLoadStage`)
    /// the decode's size and mapping; `.none(size)` otherwise. A `resample` stage must say; the
    /// default is `rows` for a point stage, the rows `radius` around them (clamped to the
    /// picture) for an area stage, and the whole input for a whole stage.
    func inputRows(forOutput rows: Range<Int>, of input: DecodeReduction) throws -> Range<Int>
    /// The stage's work: output `rows` (at the output's full width) made from `input`, the input
    /// rows `inputRows(forOutput: rows, of: input.picture)` named. A point stage is given the
    /// same rows it makes, an area stage the rows `radius` around them, a resample stage its
    /// window, and a whole stage the whole input, asked for every output row (where its size
    /// depends on the pixels, the rows of the largest it may be, and it makes what it makes). A
    /// stage whose rows depend on where they lie (a vignette, an overlay at a place) works its
    /// geometry out on `input.picture` and makes these rows of it, so strips show no bands. A
    /// run asks for strips from several threads at once: the method keeps no state.
    func makeRows(_ rows: Range<Int>, from input: StageInput) throws -> Image
    /// Whether the stage's output has an alpha channel, from whether its input has: what the
    /// streamed run sizes each level's rows by (RGB, or RGBA once a stage adds alpha). The
    /// default keeps the input's; a stage that adds alpha (a circle cut out, `ensure-alpha`) or
    /// drops it (`flatten`) says so.
    func outputHasAlpha(inputHasAlpha: Bool) -> Bool
    /// Whether every output pixel is gray (R = G = B) whatever the input: when no stage changes
    /// the picture after this one (a `tee` passes it on as it was), JPEG is written with one
    /// gray component. False unless the stage says so.
    var makesGray: Bool { get }
    /// What the stage will do to a picture of this size, in a few words, for `imagepipe explain`
    /// (scale factors, crop rectangles, circles); nil when the sizes say it all.
    func explanation(for input: Size) throws -> String?
    /// Bytes the stage holds beside its input and output rows while it works on one of `input`
    /// size: a text's drawn layout, an overlay and its scaled copy. Worked out without pixels,
    /// like `outputSize(for:)`, so that a memory budget counts them before the work
    /// (`Plan.estimatedPeakBytes`); throws `StageError` when that work is refused. 0 unless the
    /// stage says so.
    func heldBytes(for input: Size) throws -> Int
}

extension Transform {
    public var stageClass: StageClass { .whole }
    public var makesGray: Bool { false }
    public func outputHasAlpha(inputHasAlpha: Bool) -> Bool { inputHasAlpha }
    public func explanation(for input: Size) throws -> String? { nil }
    public func heldBytes(for input: Size) throws -> Int { 0 }

    public func inputRows(forOutput rows: Range<Int>, of input: DecodeReduction) throws -> Range<Int> {
        try defaultInputRows(forOutput: rows, of: input)
    }

    /// What `inputRows(forOutput:of:)` is unless the stage says more: each class's rows.
    public func defaultInputRows(forOutput rows: Range<Int>, of input: DecodeReduction) throws -> Range<Int> {
        let height = input.decodedSize.height
        switch stageClass {
        case .point: return rows
        case let .area(radius): return max(0, rows.lowerBound - radius)..<min(height, rows.upperBound + radius)
        case .whole: return 0..<height
        // Thrown, not trapped: a stage author's slip is a refusal naming the stage, in every build.
        case .resample: throw StageError("\(stageSchema.name) says it is a resample stage, so it must say which input rows its output rows need (inputRows(forOutput:of:)); a bug in the stage")
        }
    }

    /// The stage on a whole picture: every output row made from every input row.
    public func apply(to image: Image) throws -> Image {
        try apply(to: ReducedImage(image))
    }

    /// The stage on a whole decode that may be smaller than the picture it stands for (reduced
    /// for it, `ShrinkOnLoadStage`): the geometry is the full picture's, mapped onto the
    /// decode's pixels.
    public func apply(to source: ReducedImage) throws -> Image {
        guard source.isFull || shrinkOnLoad != nil else {
            throw StageError("cannot work on a \(source.image.size) picture standing for \(source.fullSize)")
        }
        return try makeRows(0..<outputSize(for: source.fullSize).height, from: StageInput(source))
    }

    /// Whether the stage's size depends on the pixels (`trim`): `outputSize(for:)` is then the
    /// largest size it may make, and the plan after it an estimate. Said by a `SurveyingStage`.
    public var outputSizeIsUpperBound: Bool { (self as? any SurveyingStage)?.sizeIsUpperBound ?? false }

    /// The stage as one that may be decoded for at a reduced size, if it is.
    public var shrinkOnLoad: (any ShrinkOnLoadStage)? { self as? any ShrinkOnLoadStage }

    /// The stage as one that may only move whole pixels, if it is.
    public var rearranging: (any RearrangingStage)? { self as? any RearrangingStage }
}
