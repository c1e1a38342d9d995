import ImagePipe

/// The four parameters and the format of an IIIF Image API image request
/// (`{region}/{size}/{rotation}/{quality}.{format}`), and the pipeline each makes of a picture:
/// region and size in one `resize` (cut and scaled in one pass, so that a JPEG decodes reduced
/// for it; a `crop` when the region is not scaled), then `flop` for `!`, `rotate`, `grayscale` or `threshold`, and `save`.
struct IIIFImageRequest: Equatable, Sendable {
    let region: IIIFRegion
    let size: IIIFSize
    let rotation: IIIFRotation
    let quality: IIIFQuality
    let format: IIIFFormat

    init(region: IIIFRegion = .full, size: IIIFSize = IIIFSize(.max), rotation: IIIFRotation = IIIFRotation(),
         quality: IIIFQuality = .default, format: IIIFFormat = .jpg) {
        self.region = region
        self.size = size
        self.rotation = rotation
        self.quality = quality
        self.format = format
    }

    /// The four segments after the identifier: `region`, `size`, `rotation`, `quality.format`,
    /// as `version` reads them.
    init(segments: [String], version: IIIFVersion) throws(ServeError) {
        precondition(segments.count == 4)
        let last = segments[3]
        guard let dot = last.lastIndex(of: ".") else {
            throw ServeError(400, "'\(last)' is not quality.format (like default.jpg)")
        }
        // The order the specification checks them in: a request wrong in several ways names its first fault.
        region = try IIIFRegion(parsing: segments[0])
        size = try IIIFSize(parsing: segments[1], version: version)
        rotation = try IIIFRotation(parsing: segments[2])
        quality = try IIIFQuality(parsing: String(last[..<dot]))
        format = try IIIFFormat(parsing: String(last[last.index(after: dot)...]))
    }

    /// What the request makes of a picture of `picture` size: the pipeline's text, and the
    /// request's canonical form (Image API 2.1 and 3.0 §4.7, which differ in the size alone)
    /// for the `Link` header.
    func plan(for picture: Size) throws(ServeError) -> (pipeline: String, canonical: String) {
        let cut = try region.rect(in: picture)
        let scaled = try size.pixels(of: cut.size)
        let whole = cut == Rect(x: 0, y: 0, width: picture.width, height: picture.height)
        var stages: [String] = []
        let cutText = "\(cut.x),\(cut.y),\(cut.width)x\(cut.height)"
        if scaled != cut.size {
            stages.append("resize \(scaled.width)x\(scaled.height) fit=fill" + (whole ? "" : " region=" + cutText))
        } else if !whole {
            // Not scaled: a plain cut, its pixels shared.
            stages.append("crop " + cutText)
        }
        if rotation.mirrored { stages.append("flop") }
        let turn = rotation.turn
        if rotation.isQuarterTurns {
            if turn != 0 { stages.append("rotate \(Int(turn))") }
        } else {
            // What the turn uncovers is transparent where the format holds transparency, else white.
            stages.append("rotate angle=\(NumberFormat.short(turn)) canvas=expand background=\(format.holdsAlpha ? "transparent" : "white")")
        }
        switch quality {
        case .default, .color: break
        case .gray: stages.append("grayscale")
        case .bitonal: stages.append("threshold")
        }
        stages.append("save format=\(format.imageFormat.rawValue)")
        let canonical = [whole ? "full" : "\(cut.x),\(cut.y),\(cut.width),\(cut.height)", size.canonical(scaled, of: cut.size),
                         (rotation.mirrored ? "!" : "") + NumberFormat.short(turn),
                         "\(quality.rawValue).\(format.rawValue)"].joined(separator: "/")
        return (stages.joined(separator: " | "), canonical)
    }
}
