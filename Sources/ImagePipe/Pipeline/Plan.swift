/// A pipeline's geometry for one source size, worked out before any pixel is decoded.
public struct Plan: Sendable {
    /// One transform with the size it receives and the size it gives.
    public struct Step: Sendable {
        public let stage: any Transform
        public let input: Size
        public let output: Size
        /// What the stage holds beside its input and output (`Transform.heldBytes(for:)`).
        public let held: Int

        public init(stage: any Transform, input: Size, output: Size, held: Int = 0) {
            self.stage = stage
            self.input = input
            self.output = output
            self.held = held
        }
    }

    /// The size the source produces (after EXIF orientation, if applied).
    public let sourceSize: Size
    public let steps: [Step]
    /// The size the source actually decodes to: `sourceSize`, or smaller when the first stage
    /// only shrinks and the format can decode reduced (shrink-on-load).
    public let decodeSize: Size
    /// What the decoder was asked for when it shrinks on load: the first stage's reducedInput,
    /// times the scaling mode's headroom.
    public let decodeAtLeast: Size?
    /// When the decoder does the first stage's resampling as it decodes (a JPEG's planes,
    /// `Transform.wholeResampling`): to `decodeSize` with this kernel, from its full decode.
    public let decodeResampling: WholeResampling?
    /// The speed/quality choice the run uses.
    public let scaling: ScalingMode
    /// The rectangle of the decode (as stored, at `decodeSize`) that the first stage reads, when
    /// it reads less than all of it (`RegionOnLoadStage`): a decoder that can pass over the rest
    /// decodes only this (`LoadOptions.region`).
    public internal(set) var decodeRegion: Rect?
    /// Whether a decode of the whole picture touches only `decodeRegion`'s memory: the decoder
    /// passes over the rest and hands rows as they are (no CMYK, planes or alpha gathered
    /// whole), so the picture's other pages are never written (`estimatedPeakBytes`).
    public internal(set) var decodeTouchesRegionOnly = false

    /// The plans of a branch's groups, each from the picture at the branch (`outputSize`).
    public let groups: [Plan]

    public init(sourceSize: Size, steps: [Step], decodeSize: Size? = nil, decodeAtLeast: Size? = nil, scaling: ScalingMode = .good,
                groups: [Plan] = [], decodeResampling: WholeResampling? = nil) {
        self.groups = groups
        self.scaling = scaling
        self.sourceSize = sourceSize
        self.steps = steps
        self.decodeSize = decodeSize ?? sourceSize
        self.decodeAtLeast = decodeSize == nil ? nil : decodeAtLeast
        self.decodeResampling = decodeSize == nil ? nil : decodeResampling
    }

    /// The size the decoder decodes at: `decodeSize`, or the full picture it resamples from.
    public var decodeWorkSize: Size { decodeResampling == nil ? decodeSize : sourceSize }

    /// How the full picture's pixels map onto a decode of `decoded` size: the whole picture
    /// onto the whole decode when the decoder resampled it, else as the source says.
    public func mapping(toDecoded decoded: Size, description: SourceDescription) -> PixelMapping {
        guard decodeResampling != nil, decoded == decodeSize, decoded != sourceSize else { return description.mapping(toDecoded: decoded) }
        return PixelMapping(scaleX: Double(decoded.width) / Double(sourceSize.width), scaleY: Double(decoded.height) / Double(sourceSize.height))
    }

    /// Whether the source decodes at a reduced size.
    public var shrinksOnLoad: Bool { decodeSize != sourceSize }

    /// The size that reaches the sink: exact when `isExact`, else an estimate made from the
    /// largest size a pixel-dependent stage (`trim`) may give.
    public var outputSize: Size { steps.last?.output ?? sourceSize }

    /// Whether every size in the plan is known from the header: no step's size depends on the
    /// pixels. After a step that does, the sizes are estimates; the run works them out again
    /// from the real pictures.
    public var isExact: Bool { !steps.contains { $0.stage.outputSizeIsUpperBound } }

    /// The index of the first step whose size depends on the pixels, if any.
    public var firstUpperBoundStep: Int? { steps.firstIndex { $0.stage.outputSizeIsUpperBound } }

    /// Every step, a branch's groups' included.
    public var allSteps: [Step] { steps + groups.flatMap(\.allSteps) }
}
