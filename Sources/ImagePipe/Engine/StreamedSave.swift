/// What streaming a run takes, worked out from the plan before any decoding: the `save` stage,
/// the file it writes and its format, and the stages' levels on the decode's rows as stored.
/// `Pipeline.streamingSave(in:prepared:)` makes it, the streamed run and its memory estimate
/// use it.
struct StreamedSave {
    let save: Save
    let destination: String
    let format: ImageFormat
    /// The stages' levels on rows of `storedSize` (the orientation's turn first, when any).
    let levels: [StripChain.Level]
    /// The decode's size as the file stores it (before its orientation's turn), reduced when
    /// the plan reduces it.
    let storedSize: Size
    /// Whether the input is decoded whole before its rows go through the stages: a format whose
    /// decoder gives only whole pictures (GIF, BMP, HEIF, a CMYK JPEG, an interlaced PNG…), or
    /// standard input. The decoded picture is then the chain's source, a cache in front of the
    /// stages: each stage still makes strips, none a whole picture of its own. Such a picture
    /// comes upright and in sRGB, as the ordinary load makes it.
    var decodedWhole = false
    /// The color a JPEG save flattens alpha onto, when the stages add alpha: the last level
    /// (`AlphaFlattening`) does it row by row.
    var flattening: Color? = nil
    /// The files written beside the save (`tee`s, a branch's other groups), in the pipeline's order.
    var sides: [SideOutput] = []
    /// Bytes of the disc threshold the run's own chain's turns may keep in memory: the threshold
    /// less what the side outputs' turns keep (`SideOutput.shareTileRoom`).
    var tileRoom = TileCache.discThreshold
    /// Every stage the picture saved went through (a branch's last group's included).
    var stagesBefore: [any Transform] = []
    /// Where the chain's stages from a branch's groups stand (by their numbers): the group's
    /// path and the place in it, where what they note goes (`RunResult.groupNotes`).
    var groupPlaces: [Int: (path: [Int], place: Int)] = [:]

    /// Whether the save's encoder takes only a whole picture (WebP, AVIF, GIF, BMP, ICO, a
    /// palette PNG): the chain's last rows are gathered into a picture in memory, a cache before
    /// the sink, and that is encoded as the ordinary run encodes it. The decode and the stages
    /// still stream: only the output is ever whole.
    var gathersWhole: Bool { save.gathersRows(format: format, path: destination) }

    /// The EXIF orientation the levels turn the decoded rows of `description` by: 1 for a picture
    /// decoded whole, which the decode turned.
    func orientation(of description: SourceDescription) -> Int { decodedWhole ? 1 : description.orientation }
}
