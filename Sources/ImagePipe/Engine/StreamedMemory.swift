/// What a streamed run holds, piece by piece, worked out from sizes before any decoding
/// (`Pipeline.streamedMemory`): what `--max-memory` reserves for it, and what `explain` shows
/// beside each stage.
public struct StreamedMemory: Sendable, Equatable {
    /// How a stage takes part in the streamed run.
    public enum Role: Sendable, Equatable {
        /// Works on each strip in place, in the rows of the level it follows.
        case point
        /// Makes its strips from a window of rows, `radius` above and below.
        case area(radius: Int)
        /// Makes its strips, at its own size, from the window of input rows they need.
        case resample
        /// Moves whole pixels out of order, read through a cache of tiles.
        case turn
        /// Makes its output from the whole picture, gathered into memory first (a smart crop).
        case whole
        /// Measures every pixel in a first read, then works as a point or resample stage.
        case survey
        /// Hands each strip, as it passes, to another output's stages and encoder on a thread of
        /// their own (a tee, a branch).
        case write

        /// The class's name, as `explain --json` gives it: point, area, resample, turn, whole, survey, write.
        public var name: String {
            switch self {
            case .point: "point"
            case .area: "area"
            case .resample: "resample"
            case .turn: "turn"
            case .whole: "whole"
            case .survey: "survey"
            case .write: "write"
            }
        }
    }

    /// A stage's part: its role and the bytes its rows (ring, window, tiles) hold.
    public struct Share: Sendable, Equatable {
        public let role: Role
        public let bytes: Int
    }

    /// The decoder's ring of rows (a WebP's whole picture, which libwebp decodes into; a
    /// picture decoded whole, and the ring it feeds).
    public let decodeRing: Int
    /// Each stage's share, by its place in the pipeline (1 for the first stage; 0 for the turn
    /// that makes the picture upright from its orientation tag).
    public let stages: [Int: Share]
    /// What the encoder holds beside the rows it is given: the coefficients libjpeg keeps to
    /// make Huffman tables for a JPEG output, PNG's filtered rows; for an encoder that takes only
    /// a whole picture, that picture, gathered from the rows, and its copies of it.
    public let coding: Int
    /// What the stages hold beside their rows (`Plan.Step.held`: a caption, an overlay); every
    /// stage of a streamed run is at work at once.
    public let besides: Int
    /// The libraries, threads and codecs' buffers (`Pipeline.streamedWorkingBytes`).
    public let working: Int
    /// Whether the encoder takes only a whole picture (WebP, AVIF, GIF, BMP, ICO, a palette PNG),
    /// which the last rows are gathered into.
    public var gathersOutput = false
    /// Whether the input is decoded whole before its rows go through the stages (its decoder
    /// gives only whole pictures, or it comes from standard input): `decodeRing` holds it.
    public var decodedWhole = false
    /// Whether the decoder writes the whole picture before it tells of any row (libwebp's
    /// incremental decoder, a TIFF in one strip): `decodeRing` is that picture.
    public var decoderWritesWhole = false

    /// All of it: the run's estimated peak.
    public var total: Int {
        ([decodeRing, coding, besides, working] + stages.values.map(\.bytes)).reduce(0) { min(Int.max / 8, $0 + min(Int.max / 8, $1)) }
    }

    /// What an encoder that takes a whole picture holds of a `size` output: the picture gathered
    /// for it at 4 bytes a pixel and two copies of its own, as `Plan.estimatedPeakBytes` counts
    /// an encoder's; saturating, for absurd sizes.
    static func gatheredBytes(_ size: Size) -> Int {
        let (pixels, overflow) = size.width.multipliedReportingOverflow(by: size.height)
        return overflow || pixels > Int.max / 96 ? Int.max / 8 : 12 * pixels
    }
}
