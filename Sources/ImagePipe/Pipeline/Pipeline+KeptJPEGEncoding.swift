/// A JPEG saved as JPEG through stages that only move its pixels (rotate 90/180/270, flip, flop,
/// crop, the EXIF turn on load, or none) is the same picture, turned or cut. When it is decoded
/// and encoded anew rather than written from its coefficients (`Pipeline+LosslessJPEG`: the move
/// could not be exact, or `lossless=false`, `progressive=true`, a trace), it keeps the input's
/// quality and chroma subsampling, each unless `quality=` or `chroma=` names another, as
/// ImageMagick keeps them. A run that makes new pixels (a resize, a filter) is encoded at the
/// defaults, as libvips, sharp and Pillow encode every picture: its input's settings say nothing
/// of what suits a new picture, a thumbnail least of all (docs/formats.md).
extension Pipeline {
    /// The input's JPEG settings that a run encodes with.
    struct KeptJPEGEncoding {
        /// The quality whose tables are nearest the input's (`CodingFacts.jpegQuality`); nil
        /// when `quality=` is given.
        let quality: Int?
        /// The subsampling written: the input's, or for one the encoder does not write the
        /// nearest that keeps all its color (4:4:0 as 4:4:4, 4:1:1 as 4:2:2). nil when `chroma=`
        /// is given, for a gray or CMYK input, which has none, and for a layout without a name.
        let chroma: ChromaSubsampling?
        /// The input's own subsampling (`4:2:2`), nil when it has none.
        let inputChroma: String?

        /// `4:2:2` for `.c422`.
        static func name(_ chroma: ChromaSubsampling) -> String { chroma.rawValue.map(String.init).joined(separator: ":") }

        /// `quality 92 and chroma 4:2:2`.
        var description: String {
            var parts: [String] = []
            if let quality { parts.append("quality \(quality)") }
            if let chroma {
                let written = Self.name(chroma)
                parts.append("chroma \(written)" + (inputChroma.map { $0 != written ? " (the nearest to its \($0))" : "" } ?? ""))
            }
            return parts.joined(separator: " and ")
        }

        /// The settings as the run's notes give them to machines (null: not the input's).
        var json: [(String, JSONValue)] {
            [("quality", quality.map { .number(Double($0)) } ?? .null), ("chroma", chroma.map { .string(Self.name($0)) } ?? .null)]
        }
    }

    /// The input's settings, when this run keeps any: a JPEG input whose pixels the stages only
    /// move, saved as one JPEG (not a pyramid) without `quality=` or without `chroma=`. `bytes`
    /// is the file when the lossless attempt read it; else its segments up to the first scan are
    /// read here (a file that can be read only once, a FIFO, is not read twice: its run encodes
    /// at the defaults).
    func keptJPEGEncoding(in context: RunContext, prepared: PreparedRun, bytes: [UInt8]?) -> KeptJPEGEncoding? {
        guard let load = source as? Load, let save = sink as? Save, save.options.quality == nil || save.options.chroma == .auto,
              let header = prepared.description.header, header.format == .jpeg,
              let target = try? save.target(in: context), target.format == .jpeg, save.pyramidLayout(path: target.path) == nil else { return nil }
        let options = load.loadOptions(in: context)
        let orientation = options.applyOrientation ? prepared.description.orientation : 1
        guard case .success = losslessGeometry(stored: header.storedSize, orientation: orientation) else { return nil }
        let facts: CodingFacts
        if let file = bytes ?? context.inputBytes {
            facts = CodingFacts.read(file, format: .jpeg)
        } else if let path = try? load.resolvedPath(in: context), path != "-", ImageFile.isRegularFile(path),
                  let read = try? CodingFacts.jpeg(path: path, limit: options.maxInputBytes, deadline: options.deadline) {
            facts = read
        } else {
            return nil
        }
        let chroma: ChromaSubsampling? = switch facts.chroma {
        case "4:4:4", "4:4:0": .c444
        case "4:2:2", "4:1:1": .c422
        case "4:2:0": .c420
        default: nil
        }
        let kept = KeptJPEGEncoding(quality: save.options.quality == nil ? facts.jpegQuality : nil,
                                    chroma: save.options.chroma == .auto ? chroma : nil, inputChroma: facts.chroma)
        return kept.quality == nil && kept.chroma == nil ? nil : kept
    }

    /// Bytes `format`'s row encoder holds for a `size` picture written by `save`
    /// (`Codec.heldEncoderBytes`), for the memory estimate, made before the input's tables are
    /// read: a run that may keep a JPEG input's chroma subsampling is counted at the
    /// subsampling that holds the most.
    func heldEncoderBytes(_ save: Save, format: ImageFormat, size: Size, channels: Int, gray: Bool, in context: RunContext,
                          prepared: PreparedRun) -> Int {
        let codec = Codecs.of(format)
        guard format == .jpeg, save.options.chroma == .auto, sink is Save, source is Load, let header = prepared.description.header, header.format == .jpeg,
              case .success = losslessGeometry(stored: header.storedSize, orientation: prepared.description.orientation) else {
            return codec.heldEncoderBytes(size: size, channels: channels, gray: gray, options: save.options)
        }
        return [ChromaSubsampling.c420, .c422, .c444].map { chroma in
            var options = save.options
            options.chroma = chroma
            return codec.heldEncoderBytes(size: size, channels: channels, gray: gray, options: options)
        }.max() ?? 0
    }

    /// This pipeline with its save encoding at `kept`'s settings.
    func encoding(at kept: KeptJPEGEncoding) -> Pipeline {
        guard var save = sink as? Save else { return self }
        if let quality = kept.quality { save.options.quality = quality }
        if let chroma = kept.chroma { save.options.chroma = chroma }
        var pipeline = self
        pipeline.sink = save
        return pipeline
    }

    /// The run's note of the settings kept (`kept`, nil when the defaults are used), and the
    /// warning when the lossless write was tried and could not be exact or was declined for its
    /// size (`inexact`): the warning told as it is decided, both in the notes that `--json` lists.
    func keptEncodingNote(_ kept: KeptJPEGEncoding?, inexact: InexactMove?, in context: RunContext) -> StageNote? {
        guard let inexact else {
            return kept.map { kept in
                StageNote(name: "encoding", text: "\(kept.description), the input's: its pixels are only moved",
                          value: .object(kept.json + [("from", .string("input"))]))
            }
        }
        let settings = kept.map { "the input's \($0.description)" } ?? "quality \(SaveOptions.defaultQuality(.jpeg)), the default (the input's could not be read)"
        let text = "not lossless: \(inexact.reason); decoded and encoded anew at \(settings)\(inexact.remedy)"
        let destination = (try? (sink as? Save)?.target(in: context).path) ?? nil
        context.warn((destination.map { "\($0): " } ?? "") + text)
        return StageNote(name: "warning", text: text, value: .object([("reason", .string(inexact.reason))] + (kept?.json ?? [])))
    }
}
