import CGdkPixbuf
import CImagePipePlugin
import ImagePipeCore
#if canImport(Glibc)
import Glibc
#endif

/// Makes a Swift `Plugin` loadable by the stock `imagepipe` at run time. A plugin library needs
/// only this entry point besides its stages:
///
///     @_cdecl("imagepipe_plugin_entry")
///     public func imagepipePluginEntry() -> UnsafeRawPointer {
///         PluginExport.table(for: VignettePlugin.plugin)
///     }
///
/// Behind it is the C interface of `imagepipe_plugin.h`: the host gets the stages' schemas as
/// JSON, sends arguments as canonical text and pictures as GdkPixbufs, so the plugin's copy of
/// ImagePipe and the host's never share a Swift type. Only transforms can be exported.
public enum PluginExport {
    /// The function table for `imagepipe_plugin_entry`, made once per process.
    public static func table(for plugin: Plugin) -> UnsafeRawPointer {
        exported.withLock { state in
            if let state { return UnsafeRawPointer(state.table) }
            let made = Exported(plugin: plugin)
            state = made
            return UnsafeRawPointer(made.table)
        }
    }

    private static let exported = Locked<Exported?>(nil)

    /// The plugin, its registry and the C table, kept for the life of the process.
    private final class Exported: @unchecked Sendable {
        let registry: Registry
        let description: Result<UnsafeMutablePointer<CChar>, StageError>
        let table: UnsafeMutablePointer<imagepipe_plugin>

        init(plugin: Plugin) {
            var registry = Registry()
            var problem: String?
            do { try registry.register(plugin) } catch { problem = "\(error)" }
            self.registry = registry
            let json = JSONValue.object([
                ("schemaVersion", .number(Double(IMAGEPIPE_PLUGIN_SCHEMA_VERSION))),
                ("name", .string(plugin.name)), ("summary", .string(plugin.summary)),
                ("stages", .array(plugin.stages.map { SchemaCoding.encode($0.schema) })),
            ])
            description = problem.map { .failure(StageError($0)) } ?? .success(strdup(json.text)!)
            table = .allocate(capacity: 1)
            table.initialize(to: imagepipe_plugin(
                interface_version: IMAGEPIPE_PLUGIN_INTERFACE_VERSION,
                table_size: UInt32(MemoryLayout<imagepipe_plugin>.size),
                describe: PluginExport.describe, create: PluginExport.create, output_size: PluginExport.outputSize,
                apply: PluginExport.apply, destroy: PluginExport.destroy, free_string: { free($0) }, notes: PluginExport.notes,
                traits: PluginExport.traits, explain: PluginExport.explain, area_radius: PluginExport.areaRadius,
                apply_window: PluginExport.applyWindow, input_rows: PluginExport.inputRows, set_context: PluginExport.setContext,
                reduced_input: PluginExport.reducedInput, input_rows_reduced: PluginExport.inputRowsReduced,
                apply_window_reduced: PluginExport.applyWindowReduced, survey_begin: PluginExport.surveyBegin,
                survey_look: PluginExport.surveyLook, survey_finish: PluginExport.surveyFinish, survey_free: PluginExport.surveyFree,
                warps: PluginExport.warps, warp_input_rect: PluginExport.warpInputRect, warp_render: PluginExport.warpRender,
                whole_resampling: PluginExport.wholeResampling))
        }

        /// The stage a call in the language's text names (the host sends the name and the
        /// canonical text of the arguments), checked through its schema as the language checks it.
        func makeStage(_ call: String) throws -> any Stage {
            let (calls, diagnostics) = Parser.parse(text: call, file: "<plugin>")
            if !diagnostics.isEmpty { throw StageError(diagnostics.map(\.message).joined(separator: "; ")) }
            guard calls.count == 1, let call = calls.first, call.groups.isEmpty, let entry = registry.entry(named: call.name.text) else {
                throw StageError("'\(call)' is not one call of a stage of this plugin")
            }
            return try entry.definition.makeStage(arguments: entry.schema.arguments(from: call.rawArguments))
        }
    }

    /// A stage made for the host, kept alive until it says destroy.
    private final class StageBox {
        let stage: any Transform
        init(_ stage: any Transform) { self.stage = stage }
    }

    private static var current: Exported? { exported.withLock { $0 } }

    private static func report(_ message: String, _ error: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) {
        error?.pointee = strdup(message)
    }

    private static func box(_ stage: UnsafeMutableRawPointer?) -> StageBox {
        Unmanaged<StageBox>.fromOpaque(stage!).takeUnretainedValue()
    }

    private static let describe: @convention(c) (UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> UnsafePointer<CChar>? = { error in
        switch current?.description {
        case let .success(text): return UnsafePointer(text)
        case let .failure(problem): report(problem.message, error)
        case nil: report("the plugin was not exported", error)
        }
        return nil
    }

    private static let create: @convention(c) (UnsafePointer<CChar>?, UnsafePointer<CChar>?, UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> UnsafeMutableRawPointer? = { name, arguments, failure in
        guard let exported = current, let name, let arguments else {
            report("no plugin or no stage name", failure)
            return nil
        }
        do {
            guard let stage = try exported.makeStage(String(cString: name) + " " + String(cString: arguments)) as? any Transform else {
                report("'\(String(cString: name))' is not a transform; only transforms can be loaded at run time", failure)
                return nil
            }
            return Unmanaged.passRetained(StageBox(stage)).toOpaque()
        } catch {
            report("\(error)", failure)
        }
        return nil
    }

    private static let outputSize: @convention(c) (UnsafeMutableRawPointer?, Int32, Int32, UnsafeMutablePointer<Int32>?, UnsafeMutablePointer<Int32>?, UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 = { stage, width, height, outWidth, outHeight, failure in
        do {
            let size = try box(stage).stage.outputSize(for: Size(Int(width), Int(height)))
            guard size.width <= Int(Int32.max), size.height <= Int(Int32.max) else { throw StageError("\(size) is too large") }
            outWidth?.pointee = Int32(size.width)
            outHeight?.pointee = Int32(size.height)
            return 0
        } catch {
            report("\(error)", failure)
            return 1
        }
    }

    private static let apply: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?, UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> UnsafeMutableRawPointer? = { stage, pixbuf, failure in
        applied(pixbuf, failure) { try box(stage).stage.apply(to: $0) }
    }

    /// A strip or window at its place in the picture: the stage's rows as the compiled-in stage
    /// makes them in a streamed run.
    private static let applyWindow: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?, Int32, Int32, Int32, Int32, Int32,
                                                    UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> UnsafeMutableRawPointer? = {
        stage, pixbuf, windowTop, width, height, firstRow, rowCount, failure in
        applied(pixbuf, failure) { window in
            try box(stage).stage.makeRows(Int(firstRow)..<(Int(firstRow) + Int(rowCount)),
                                          from: StageInput(pixels: window, top: Int(windowTop), picture: .none(Size(Int(width), Int(height)))))
        }
    }

    /// `body` on the host's picture: its result with a reference for the host, and what the stage
    /// recorded kept for `notes`; nil with the reason on a failure.
    private static func applied(_ pixbuf: UnsafeMutableRawPointer?, _ failure: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
                                _ body: (Image) throws -> Image) -> UnsafeMutableRawPointer? {
        guard let pixbuf else {
            report("no picture", failure)
            return nil
        }
        return made(failure) { UnsafeMutableRawPointer(try body(Image(retaining: OpaquePointer(pixbuf))).retainedPixbuf()) }
    }

    /// `body` in the run's context the host gave this thread: what it made, handed to the host with
    /// a reference of its own (a picture, a stage), and what the stage recorded kept for `notes`;
    /// nil with the reason on a failure.
    private static func made(_ failure: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
                             _ body: () throws -> UnsafeMutableRawPointer) -> UnsafeMutableRawPointer? {
        do {
            let thread = UInt(pthread_self())
            let context = pending.withLock { $0[thread]?.context.take() } ?? StageContext()
            let (result, notes) = try context.bound { try StageNote.collecting { try body() } }
            pending.withLock { $0[thread, default: Exchange()].notes = notes.isEmpty ? nil : notes }
            return result
        } catch {
            report("\(error)", failure)
            return nil
        }
    }

    /// A resample stage's input rows for a strip of its output.
    private static let inputRows: @convention(c) (UnsafeMutableRawPointer?, Int32, Int32, Int32, Int32, UnsafeMutablePointer<Int32>?,
                                                  UnsafeMutablePointer<Int32>?, UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 = {
        stage, firstRow, rowCount, width, height, inputFirst, inputCount, failure in
        named(inputFirst, inputCount, failure) {
            try box(stage).stage.inputRows(forOutput: Int(firstRow)..<(Int(firstRow) + Int(rowCount)), of: .none(Size(Int(width), Int(height))))
        }
    }

    /// The input rows `rows` gives, written where the host asked: 0, or 1 with the reason.
    private static func named(_ inputFirst: UnsafeMutablePointer<Int32>?, _ inputCount: UnsafeMutablePointer<Int32>?,
                              _ failure: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ rows: () throws -> Range<Int>) -> Int32 {
        do {
            let rows = try rows()
            inputFirst?.pointee = Int32(clamping: rows.lowerBound)
            inputCount?.pointee = Int32(clamping: rows.count)
            return 0
        } catch {
            report("\(error)", failure)
            return 1
        }
    }

    /// The smallest decode a stage that only shrinks needs (`reducedInput(for:)`): 1 with it, 0
    /// when it needs the full picture.
    private static let reducedInput: @convention(c) (UnsafeMutableRawPointer?, Int32, Int32, UnsafeMutablePointer<Int32>?, UnsafeMutablePointer<Int32>?,
                                                     UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 = {
        stage, width, height, reducedWidth, reducedHeight, failure in
        do {
            guard let size = try box(stage).stage.shrinkOnLoad?.reducedInput(for: Size(Int(width), Int(height))) else { return 0 }
            reducedWidth?.pointee = Int32(clamping: size.width)
            reducedHeight?.pointee = Int32(clamping: size.height)
            return 1
        } catch {
            report("\(error)", failure)
            return -1
        }
    }

    /// A stage's whole work when that is resampling the whole picture (`wholeResampling(for:)`):
    /// 1 with the size and kernel, 0 when the stage does more.
    private static let wholeResampling: @convention(c) (UnsafeMutableRawPointer?, Int32, Int32, UnsafeMutablePointer<Int32>?,
                                                        UnsafeMutablePointer<Int32>?, UnsafeMutablePointer<Int32>?,
                                                        UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 = {
        stage, width, height, outputWidth, outputHeight, kernel, failure in
        do {
            guard let resampling = try box(stage).stage.shrinkOnLoad?.wholeResampling(for: Size(Int(width), Int(height))) else { return 0 }
            outputWidth?.pointee = Int32(clamping: resampling.size.width)
            outputHeight?.pointee = Int32(clamping: resampling.size.height)
            kernel?.pointee = resampling.kernel?.interfaceNumber ?? 0
            return 1
        } catch {
            report("\(error)", failure)
            return -1
        }
    }

    /// The host's reduction, checked.
    private static func reduction(_ given: UnsafePointer<imagepipe_reduction>?) throws -> DecodeReduction {
        guard let given, given.pointee.size >= UInt32(MemoryLayout<imagepipe_reduction>.size) else {
            throw StageError("the host gave no reduction, or a shorter one than this plugin knows")
        }
        let r = given.pointee
        guard r.full_width > 0, r.full_height > 0, r.decoded_width > 0, r.decoded_height > 0,
              [r.scale_x, r.scale_y, r.offset_x, r.offset_y].allSatisfy(\.isFinite) else {
            throw StageError("the host gave a reduction of no size or with a map that is not finite")
        }
        return DecodeReduction(fullSize: Size(Int(r.full_width), Int(r.full_height)), decodedSize: Size(Int(r.decoded_width), Int(r.decoded_height)),
                               mapping: PixelMapping(scaleX: r.scale_x, scaleY: r.scale_y, offsetX: r.offset_x, offsetY: r.offset_y))
    }

    /// A resample stage's rows of a reduced decode for a strip of its output.
    private static let inputRowsReduced: @convention(c) (UnsafeMutableRawPointer?, Int32, Int32, UnsafePointer<imagepipe_reduction>?,
                                                         UnsafeMutablePointer<Int32>?, UnsafeMutablePointer<Int32>?,
                                                         UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 = {
        stage, firstRow, rowCount, given, inputFirst, inputCount, failure in
        named(inputFirst, inputCount, failure) {
            try box(stage).stage.inputRows(forOutput: Int(firstRow)..<(Int(firstRow) + Int(rowCount)), of: reduction(given))
        }
    }

    /// Output rows from a window of a reduced decode; the whole decode for a stage that is not a
    /// resample stage.
    private static let applyWindowReduced: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?, Int32, UnsafePointer<imagepipe_reduction>?,
                                                           Int32, Int32, UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> UnsafeMutableRawPointer? = {
        stage, pixbuf, windowTop, given, firstRow, rowCount, failure in
        applied(pixbuf, failure) { window in
            let stage = box(stage).stage, reduction = try reduction(given)
            let rows = Int(firstRow)..<(Int(firstRow) + Int(rowCount))
            guard stage.stageClass == .resample || (windowTop == 0 && window.size == reduction.decodedSize) else {
                throw StageError("\(stage.stageSchema.name) takes a reduced decode whole, not in strips")
            }
            return try stage.makeRows(rows, from: StageInput(pixels: window, top: Int(windowTop), picture: reduction))
        }
    }

    /// A survey under way: the stage's own, kept until the host frees it.
    private final class SurveyBox {
        let look: (Image, StripPosition) throws -> Void
        let finish: () throws -> any Transform

        init<S: SurveyingStage>(_ stage: S) {
            let tally = SurveyTally(stage.newSurvey())
            look = { try tally.survey.look(at: $0, at: $1) }
            finish = { try stage.surveyed(by: tally.survey) }
        }
    }

    private final class SurveyTally<Survey: PixelSurvey> {
        var survey: Survey
        init(_ survey: Survey) { self.survey = survey }
    }

    private static func surveyBox(_ survey: UnsafeMutableRawPointer?) -> SurveyBox {
        Unmanaged<SurveyBox>.fromOpaque(survey!).takeUnretainedValue()
    }

    private static let surveyBegin: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> UnsafeMutableRawPointer? = {
        stage, failure in
        let stage = box(stage).stage
        guard let surveying = stage as? any SurveyingStage, stage.awaitsSurvey else {
            report("\(stage.stageSchema.name) does not survey", failure)
            return nil
        }
        return Unmanaged.passRetained(SurveyBox(surveying)).toOpaque()
    }

    private static let surveyLook: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?, Int32, Int32, Int32,
                                                   UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 = {
        survey, pixbuf, firstRow, width, height, failure in
        guard let pixbuf else {
            report("no picture", failure)
            return 1
        }
        do {
            try surveyBox(survey).look(Image(retaining: OpaquePointer(pixbuf)), StripPosition(top: Int(firstRow), pictureSize: Size(Int(width), Int(height))))
            return 0
        } catch {
            report("\(error)", failure)
            return 1
        }
    }

    /// The stage the survey made, with what it noted kept for `notes`.
    private static let surveyFinish: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> UnsafeMutableRawPointer? = {
        survey, failure in
        made(failure) { Unmanaged.passRetained(StageBox(try surveyBox(survey).finish())).toOpaque() }
    }

    private static let surveyFree: @convention(c) (UnsafeMutableRawPointer?) -> Void = { survey in
        if let survey { Unmanaged<SurveyBox>.fromOpaque(survey).release() }
    }

    private static let warps: @convention(c) (UnsafeMutableRawPointer?, Int32, Int32) -> Int32 = { stage, width, height in
        (box(stage).stage as? any WarpingStage)?.warps(Size(Int(width), Int(height))) == true ? 1 : 0
    }

    private static func rect(_ given: imagepipe_rect) -> Rect {
        Rect(x: Int(given.x), y: Int(given.y), width: Int(given.width), height: Int(given.height))
    }

    private static let warpInputRect: @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<imagepipe_rect>?, Int32, Int32, UnsafeMutablePointer<imagepipe_rect>?,
                                                      UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 = {
        stage, output, width, height, input, failure in
        do {
            guard let warping = box(stage).stage as? any WarpingStage, let output else { throw StageError("no warping stage or no rectangle") }
            guard let found = try warping.inputRect(forOutput: rect(output.pointee), inputSize: Size(Int(width), Int(height))) else { return 0 }
            input?.pointee = imagepipe_rect(x: Int32(clamping: found.x), y: Int32(clamping: found.y), width: Int32(clamping: found.width),
                                            height: Int32(clamping: found.height))
            return 1
        } catch {
            report("\(error)", failure)
            return -1
        }
    }

    private static let warpRender: @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<imagepipe_rect>?, UnsafeMutableRawPointer?,
                                                   UnsafePointer<imagepipe_rect>?, Int32, Int32,
                                                   UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> UnsafeMutableRawPointer? = {
        stage, output, pixbuf, input, width, height, failure in
        made(failure) {
            guard let warping = box(stage).stage as? any WarpingStage, let output else { throw StageError("no warping stage or no rectangle") }
            let source = pixbuf.map { Image(retaining: OpaquePointer($0)) }
            let made = try warping.render(rect(output.pointee), from: source, at: source == nil ? nil : input.map { rect($0.pointee) },
                                          inputSize: Size(Int(width), Int(height)))
            return UnsafeMutableRawPointer(made.retainedPixbuf())
        }
    }

    /// What passes between the host and a stage around one apply, on the apply's thread: the
    /// run's context, given right before it (`set_context`), in which the stage works as it does
    /// compiled in; and what the apply recorded, until the host asks right after it (`notes`).
    /// Pictures of a batch go through one stage on several threads, so it is kept per thread.
    private struct Exchange {
        var context: StageContext?
        var notes: [StageNote]?
    }

    private static let pending = Locked<[UInt: Exchange]>([:])

    private static let setContext: @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<imagepipe_stage_context>?) -> Void = { _, given in
        let thread = UInt(pthread_self())
        guard let given, Int(given.pointee.size) >= MemoryLayout<imagepipe_stage_context>.size else {
            pending.withLock { $0[thread]?.context = nil }
            return
        }
        let host = given.pointee
        // The host's run and its should_stop stay valid until the apply this context is for returns.
        let asking = host.should_stop.map { shouldStop in
            let run = HostRun(pointer: host.run)
            return Cancellation(asking: { shouldStop(run.pointer) != 0 })
        }
        pending.withLock {
            $0[thread, default: Exchange()].context = StageContext(scaling: ScalingMode(interfaceNumber: host.scaling), maxPixels: host.max_pixels > 0 ? Int(host.max_pixels) : nil, cancellation: asking)
        }
    }

    /// The host's `run`, which only the host's `should_stop` reads.
    private struct HostRun: @unchecked Sendable {
        let pointer: UnsafeRawPointer?
    }

    private static let notes: @convention(c) (UnsafeMutableRawPointer?) -> UnsafeMutablePointer<CChar>? = { _ in
        let thread = UInt(pthread_self())
        guard let notes = pending.withLock({ $0.removeValue(forKey: thread)?.notes }) else { return nil }
        return strdup(JSONValue.array(notes.map(\.json)).text)
    }

    /// What the stage promises, so that the host streams it and plans it as it would the stage
    /// compiled in.
    private static let traits: @convention(c) (UnsafeMutableRawPointer?) -> UInt32 = { stage in
        let stage = box(stage).stage
        return (stage.stageClass == .point ? IMAGEPIPE_STAGE_ROW_LOCAL : 0) | (stage.outputSizeIsUpperBound ? IMAGEPIPE_STAGE_SIZE_UPPER_BOUND : 0)
            | (stage.makesGray ? IMAGEPIPE_STAGE_MAKES_GRAY : 0) | (stage.stageClass == .resample ? IMAGEPIPE_STAGE_RESAMPLE : 0)
            | (stage.outputHasAlpha(inputHasAlpha: false) ? IMAGEPIPE_STAGE_ADDS_ALPHA : 0)
            | (stage.outputHasAlpha(inputHasAlpha: true) ? 0 : IMAGEPIPE_STAGE_DROPS_ALPHA)
            | (stage.awaitsSurvey ? surveyTraits(stage) : 0)
    }

    /// A surveying stage's bit for the class of the stage its survey makes.
    private static func surveyTraits(_ stage: any Transform) -> UInt32 {
        switch (stage as? any SurveyingStage)?.surveyedClass {
        case .point?: IMAGEPIPE_STAGE_SURVEYS_TO_POINT
        case .resample?: IMAGEPIPE_STAGE_SURVEYS_TO_RESAMPLE
        default: 0
        }
    }

    /// An area stage's radius, so that the host runs it on windows of rows as it runs the stock
    /// filters; -1 for any other class.
    private static let areaRadius: @convention(c) (UnsafeMutableRawPointer?) -> Int32 = { stage in
        guard case let .area(radius) = box(stage).stage.stageClass else { return -1 }
        return Int32(clamping: radius)
    }

    private static let explain: @convention(c) (UnsafeMutableRawPointer?, Int32, Int32) -> UnsafeMutablePointer<CChar>? = { stage, width, height in
        guard let text = try? box(stage).stage.explanation(for: Size(Int(width), Int(height))) else { return nil }
        return strdup(text)
    }

    private static let destroy: @convention(c) (UnsafeMutableRawPointer?) -> Void = { stage in
        if let stage { Unmanaged<StageBox>.fromOpaque(stage).release() }
    }
}
