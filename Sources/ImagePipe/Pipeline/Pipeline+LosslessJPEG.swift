#if canImport(Glibc)
import Glibc
#endif

/// The lossless JPEG run: a JPEG saved as JPEG through stages that only move whole pixels
/// (`rotate 90|180|270`, `flip`, `flop`, `crop`, and the EXIF turn on load), or through none
/// (a metadata change), is written from the file's own DCT coefficients, moved but never
/// decoded, as jpegtran does: nothing is lost to a second quantization, and the file is not
/// larger than the picture needs. libjpeg's coefficient API does the work (jpeg_lossless.c).
///
/// It is exact or not done: a turn that would move a partial block at the right or bottom edge
/// inside the picture, or a crop off the block grid, is not lossless, and `save lossless=auto`
/// then encodes anew, at the input's quality and chroma subsampling, with a warning
/// (`Pipeline+KeptJPEGEncoding`); `lossless=true` fails instead, and `lossless=trim` drops the
/// partial blocks, as `jpegtran -trim` does.
extension Pipeline {
    /// What the lossless write does: one turn of the whole stored picture, then a crop of it.
    struct LosslessJPEG {
        let save: Save
        let destination: String
        let turn: Dihedral
        /// In the turned picture's pixels; nil for the whole picture.
        let crop: Rect?
        let metadata: OutputMetadata
        let warnings: [String]
        /// What reading the input's metadata found wrong (an EXIF block that is ignored), told
        /// with the input's name as a decode's warnings are.
        var readWarnings: [String] = []
        let bytes: [UInt8]
    }

    /// What a lossless run of this input does, in words, when it is to be one: for `imagepipe
    /// explain`. nil when the run encodes anew.
    public func losslessJPEGSummary(in context: RunContext, prepared: PreparedRun) -> String? {
        guard wantsLosslessJPEG(in: context), case let .success(lossless) = losslessJPEG(in: context, prepared: prepared, reading: false) else { return nil }
        var moves: [String] = []
        if lossless.turn != .identity { moves.append(lossless.turn.description) }
        if let crop = lossless.crop { moves.append("crop \(crop.x),\(crop.y),\(crop.width)x\(crop.height)") }
        let what = moves.isEmpty ? "copied" : "moved (\(moves.joined(separator: ", ")))"
        if lossless.save.options.losslessMode == .trim {
            return "lossless: not decoded; its DCT coefficients are \(what) and written as they are; the partial blocks a turn would bring to the left or top, and a crop's corner off the block grid (8 or 16 pixels), are trimmed as jpegtran -trim does: a few pixels fewer, which the run's notes count"
        }
        return "lossless: not decoded; its DCT coefficients are \(what) and written as they are, when that keeps to whole blocks (8 or 16 pixels: the sides and the crop's corner); else decoded and encoded anew at the input's quality and chroma subsampling, with a warning"
    }

    /// Bytes a lossless write of this input holds at its peak, 0 when the run is not one: the
    /// file's coefficients and the moved copy of them (a turn or crop; a copy alone keeps one),
    /// the file read into memory and the file written (about as large), and the libraries'
    /// working memory.
    public func losslessJPEGPeakBytes(in context: RunContext, prepared: PreparedRun) -> Int {
        guard wantsLosslessJPEG(in: context), let header = prepared.description.header, header.coefficientBytes > 0,
              case let .success(lossless) = losslessJPEG(in: context, prepared: prepared, reading: false) else { return 0 }
        let copies = lossless.turn == .identity && lossless.crop == nil ? 1 : 2
        let fileBytes = context.inputBytes?.count ?? Self.fileSize(try? (source as? Load)?.resolvedPath(in: context)) ?? header.coefficientBytes / 4
        return min(Int.max / 8, copies * header.coefficientBytes + 2 * fileBytes + Plan.workingBytes)
    }

    private static func fileSize(_ path: String?) -> Int? {
        var status = stat()
        guard let path, stat(path, &status) == 0 else { return nil }
        return Int(status.st_size)
    }

    /// Whether `save lossless=` applies at all: JPEG output, and lossless not refused.
    func wantsLosslessJPEG(in context: RunContext) -> Bool {
        guard let save = sink as? Save, save.options.lossless != false, (try? save.target(in: context).format) == .jpeg,
              !save.writesPyramid(in: context) else { return false }
        return true
    }

    /// What came of trying the lossless write.
    enum LosslessAttempt {
        /// Written from the coefficients.
        case written(RunResult)
        /// To be decoded and encoded anew. `inexact`: why the move was not made, when it was
        /// tried and failed or declined for its size (to warn of); `bytes`: the file, when it
        /// was read.
        case encodeAnew(inexact: InexactMove?, bytes: [UInt8]?)
    }

    /// Why a lossless write that `lossless=auto` would have made is encoded anew, to warn of.
    enum InexactMove {
        /// A partial block would move, or libjpeg could not move the coefficients: `trim` and
        /// `true` are the remedies.
        case notExact(String)
        /// The coefficients would take more than `lossless=auto` holds; the reason names its
        /// remedy (`lossless=true`).
        case pastAutoBound(String)

        var reason: String {
            switch self {
            case let .notExact(reason), let .pastAutoBound(reason): reason
            }
        }

        /// What else the user may ask for, in the warning.
        var remedy: String {
            switch self {
            case .notExact: " (lossless=trim drops the partial blocks instead; lossless=true refuses)"
            case .pastAutoBound: ""
            }
        }
    }

    /// The lossless write when it can be done, else what the run that encodes anew needs to
    /// know. Throws when `lossless=true` or `trim` asked for it and it cannot be done.
    func runLosslessJPEGIfAsked(in context: RunContext, prepared: PreparedRun, observed: Bool) throws -> LosslessAttempt {
        guard wantsLosslessJPEG(in: context), let mode = (sink as? Save)?.options.losslessMode else { return .encodeAnew(inexact: nil, bytes: nil) }
        let outcome = observed ? .failure(StageError("a trace needs the decoded pixels")) : losslessJPEG(in: context, prepared: prepared)
        switch outcome {
        case let .success(lossless):
            return try runLosslessJPEG(lossless, in: context, prepared: prepared, mode: mode)
        case let .failure(reason):
            // Too large for auto is told as an inexact move is: the user may want it all the same.
            if !observed, let tooLarge = coefficientsPastAuto(in: context, prepared: prepared) {
                return .encodeAnew(inexact: .pastAutoBound(tooLarge), bytes: nil)
            }
            guard mode.flag == true else { return .encodeAnew(inexact: nil, bytes: nil) }
            throw located(StageError("lossless=\(mode.rawValue): \(reason.message)"), stage: transforms.count + 1)
        }
    }

    /// The lossless write of this input, or why it cannot be one. `reading` reads the file's
    /// bytes and metadata (false: only the stages and options are looked at).
    func losslessJPEG(in context: RunContext, prepared: PreparedRun, reading: Bool = true) -> Result<LosslessJPEG, StageError> {
        guard let load = source as? Load, let save = sink as? Save, let header = prepared.description.header, header.format == .jpeg else {
            return .failure(StageError("the input is not a JPEG"))
        }
        guard let target = try? save.target(in: context), target.format == .jpeg else { return .failure(StageError("the output is not JPEG")) }
        guard save.pyramidLayout(path: target.path) == nil else { return .failure(StageError("a tile pyramid's tiles are encoded anew")) }
        if save.options.quality != nil { return .failure(StageError("quality= asks for a new encoding")) }
        if save.options.chroma != .auto { return .failure(StageError("chroma= asks for a new encoding")) }
        if save.options.progressive { return .failure(StageError("progressive=true asks for a new encoding")) }
        let options = load.loadOptions(in: context)
        let turn: Dihedral, crop: Rect?
        switch losslessGeometry(stored: header.storedSize, orientation: options.applyOrientation ? prepared.description.orientation : 1) {
        case let .success(geometry): (turn, crop) = geometry
        case let .failure(reason): return .failure(reason)
        }
        if let tooLarge = coefficientsPastAuto(in: context, prepared: prepared) { return .failure(StageError(tooLarge)) }
        guard reading else {
            return .success(LosslessJPEG(save: save, destination: target.path, turn: turn, crop: crop, metadata: OutputMetadata(), warnings: [], bytes: []))
        }
        let bytes: [UInt8]
        do {
            bytes = try context.inputBytes ?? ImageFile.readAll(path: load.resolvedPath(in: context), limit: options.maxInputBytes, deadline: options.deadline)
        } catch {
            return .failure(StageError("\(error)"))
        }
        guard var scanner = MetadataScanner(format: .jpeg) else { return .failure(StageError("the input is not a JPEG")) }
        bytes.withUnsafeBytes { scanner.scan($0) }
        var metadata = scanner.metadata
        if metadata.profileTooLarge { return .failure(StageError("its color profile is too large to carry")) }
        // The pixels stay in the file's own colors: its profile goes with them, or none.
        metadata.iccProfile = metadata.sourceProfile
        metadata.orientationApplied = options.applyOrientation && prepared.description.orientation != 1
        guard let saving = try? Image.savingPlan(for: metadata, as: .jpeg, options: save.options), saving.target == metadata.iccProfile else {
            return .failure(StageError("profile= asks for the colors to be converted"))
        }
        return .success(LosslessJPEG(save: save, destination: target.path, turn: turn, crop: crop, metadata: saving.embedded,
                                     warnings: saving.warnings, readWarnings: metadata.decodeWarnings, bytes: bytes))
    }

    /// Why `lossless=auto` encodes anew a JPEG whose coefficients (and their moved copy) would
    /// take more than `SaveOptions.optimizeCodingLimit`, as `optimize-coding=auto` makes no
    /// tables past it: a 512x512 crop of a 327 MP JPEG held 2.0 GiB for 5.8–6.8 s (jpegtran: 1.8 GiB,
    /// 4.2 s) where its region decoded and encoded anew takes 36 MiB and 0.1–1.2 s. nil when
    /// they fit, or when `true` or `trim` asks for them whatever they take.
    func coefficientsPastAuto(in context: RunContext, prepared: PreparedRun) -> String? {
        guard let save = sink as? Save, save.options.losslessMode == .auto, let header = prepared.description.header, header.format == .jpeg,
              let load = source as? Load else { return nil }
        let orientation = load.loadOptions(in: context).applyOrientation ? prepared.description.orientation : 1
        guard let (turn, crop) = try? losslessGeometry(stored: header.storedSize, orientation: orientation).get() else { return nil }
        let held = (turn == .identity && crop == nil ? 1 : 2) * header.coefficientBytes
        guard held > SaveOptions.optimizeCodingLimit else { return nil }
        return "its DCT coefficients would take about \(MemoryBudget.describe(held)), more than the \(MemoryBudget.describe(SaveOptions.optimizeCodingLimit)) "
            + "lossless=auto holds (lossless=true moves them all the same)"
    }

    /// The one turn of the whole stored picture, then the crop of it (in the turned picture's
    /// pixels; nil for all of it), that the EXIF turn on load (`orientation`, 1 when not applied)
    /// and the stages make together; a failure naming the first stage that does more than move
    /// pixels.
    func losslessGeometry(stored: Size, orientation: Int) -> Result<(turn: Dihedral, crop: Rect?), StageError> {
        var turn = Dihedral(exifOrientation: orientation)
        var crop: Rect?
        var current = turn.size(of: stored)
        for (offset, transform) in transforms.enumerated() {
            guard let rearrangement = try? transform.rearranging?.rearrangement(for: current) else {
                return .failure(StageError("\(transform.stageSchema.name) (stage \(offset + 1)) is not a quarter turn, mirror or crop"))
            }
            let whole = turn.size(of: stored)
            let kept = crop ?? Rect(x: 0, y: 0, width: whole.width, height: whole.height)
            switch rearrangement {
            case let .orient(next):
                crop = next.map(kept, in: whole)
                turn = turn.then(next)
                current = next.size(of: current)
            case let .crop(rect):
                crop = Rect(x: kept.x + rect.x, y: kept.y + rect.y, width: rect.width, height: rect.height)
                current = Size(rect.width, rect.height)
            }
        }
        let whole = turn.size(of: stored)
        if crop == Rect(x: 0, y: 0, width: whole.width, height: whole.height) { crop = nil }
        return .success((turn, crop))
    }

    /// Writes the lossless JPEG; `.encodeAnew` with libjpeg's reason when it cannot be done
    /// exactly (a partial block would move) or at all, for the ordinary run to encode anew.
    /// `trim` drops the partial blocks instead, and notes how many pixels went.
    func runLosslessJPEG(_ lossless: LosslessJPEG, in context: RunContext, prepared: PreparedRun, mode: LosslessMode) throws -> LosslessAttempt {
        let path = try? (source as? Load)?.resolvedPath(in: context)
        let outcome = try JPEGCoefficientMove.move(lossless.bytes, turn: lossless.turn, crop: lossless.crop, trim: mode == .trim,
                                                   icc: lossless.metadata.icc, exif: lossless.metadata.describing(prepared.plan.outputSize).exif,
                                                   xmp: lossless.metadata.xmp,
                                                   maxPixels: context.loadOptions.maxPixels, deadline: context.loadOptions.deadline, path: path)
        let sinkIndex = transforms.count + 1
        let bytes: [UInt8], trimmed: LosslessJPEGTrim
        switch outcome {
        case let .written(written, trim):
            (bytes, trimmed) = (written, trim)
        case let .notExact(reason):
            if mode.flag == true { throw located(StageError("lossless=\(mode.rawValue): \(reason)"), stage: sinkIndex) }
            return .encodeAnew(inexact: .notExact(reason), bytes: lossless.bytes)
        case let .failed(reason):
            if mode.flag == true { throw located(StageError("lossless=\(mode.rawValue): libjpeg could not rewrite it: \(reason)"), stage: sinkIndex) }
            return .encodeAnew(inexact: .notExact("libjpeg could not move its coefficients: \(reason)"), bytes: lossless.bytes)
        }
        for warning in lossless.readWarnings { context.warn("\(path ?? "the input"): \(warning); read all the same") }
        for warning in lossless.warnings { context.warn("\(lossless.destination): \(warning)") }
        try context.cancellation?.check(path: lossless.destination)
        let written = try withLocation(stage: sinkIndex) { try lossless.save.store(bytes, at: lossless.destination, in: context) }
        let asked = prepared.plan.outputSize
        let size = Size(asked.width - trimmed.left, asked.height - trimmed.top)
        var result = RunResult(plan: prepared.plan, written: [WrittenFile(path: written, size: size)], outputSize: size)
        if let note = trimmed.note(asked: asked) { result.notes[sinkIndex] = [note] }
        return .written(result)
    }
}
