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
        let survey: UnsafeMutablePointer<imagepipe_survey_functions>
        let warp: UnsafeMutablePointer<imagepipe_warp_functions>

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
            survey = .allocate(capacity: 1)
            survey.initialize(to: imagepipe_survey_functions(
                size: UInt32(MemoryLayout<imagepipe_survey_functions>.size), begin: PluginExport.surveyBegin,
                look: PluginExport.surveyLook, finish: PluginExport.surveyFinish, free: PluginExport.surveyFree))
            warp = .allocate(capacity: 1)
            warp.initialize(to: imagepipe_warp_functions(
                size: UInt32(MemoryLayout<imagepipe_warp_functions>.size), warps: PluginExport.warps,
                input_rect: PluginExport.warpInputRect, render: PluginExport.warpRender))
            table = .allocate(capacity: 1)
            table.initialize(to: imagepipe_plugin(
                interface_version: IMAGEPIPE_PLUGIN_INTERFACE_VERSION,
                table_size: UInt32(MemoryLayout<imagepipe_plugin>.size),
                describe: PluginExport.describe, create: PluginExport.create, destroy: PluginExport.destroy,
                free_string: { free($0) }, traits: PluginExport.traits, plan: PluginExport.plan,
                input_rows: PluginExport.inputRows, make_rows: PluginExport.makeRows, shrink: PluginExport.shrink,
                survey: UnsafePointer(survey), warp: UnsafePointer(warp)))
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

    /// The size the stage makes from a width x height input and, when the host asks, what it
    /// will do in a few words.
    private static let plan: @convention(c) (UnsafeMutableRawPointer?, Int32, Int32, UnsafeMutablePointer<Int32>?, UnsafeMutablePointer<Int32>?,
                                             UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 = {
        stage, width, height, outWidth, outHeight, explanation, failure in
        do {
            let stage = box(stage).stage, input = Size(Int(width), Int(height))
            let size = try stage.outputSize(for: input)
            guard size.width <= Int(Int32.max), size.height <= Int(Int32.max) else { throw StageError("\(size) is too large") }
            outWidth?.pointee = Int32(size.width)
            outHeight?.pointee = Int32(size.height)
            if let explanation { explanation.pointee = try stage.explanation(for: input).map { strdup($0) } ?? nil }
            return 0
        } catch {
            report("\(error)", failure)
            return 1
        }
    }

    /// The one method that makes pixels: output rows from the host's input rows, at their place
    /// in the input, in the run's context the host gave with the call.
    private static let makeRows: @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<imagepipe_stage_context>?, UnsafeMutableRawPointer?, Int32,
                                                 UnsafePointer<imagepipe_reduction>?, Int32, Int32, UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
                                                 UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> UnsafeMutableRawPointer? = {
        stage, context, pixbuf, top, given, firstRow, rowCount, notes, failure in
        guard let pixbuf else {
            report("no picture", failure)
            return nil
        }
        return made(context, notes, failure) {
            let stage = box(stage).stage, picture = try reduction(given)
            let rows = Int(firstRow)..<(Int(firstRow) + Int(rowCount))
            let input = StageInput(pixels: Image(retaining: OpaquePointer(pixbuf)), top: Int(top), picture: picture)
            // A reduced decode is only for a stage that asked for one, and is taken in strips only by a resample stage.
            guard picture.isFull || (stage.shrinkOnLoad != nil && (stage.stageClass == .resample || input.rows == 0..<picture.decodedSize.height)) else {
                throw StageError("\(stage.stageSchema.name) takes a reduced decode whole, and only when it asked for one")
            }
            return UnsafeMutableRawPointer(try stage.makeRows(rows, from: input).retainedPixbuf())
        }
    }

    /// `body` in the run's context the host gave with the call: what it made, handed to the host
    /// with a reference of its own (a picture, a stage), and what the stage recorded written to
    /// `notes` as JSON; nil with the reason on a failure.
    private static func made(_ given: UnsafePointer<imagepipe_stage_context>?, _ notes: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
                             _ failure: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
                             _ body: () throws -> UnsafeMutableRawPointer) -> UnsafeMutableRawPointer? {
        do {
            let (result, recorded) = try context(given).bound { try StageNote.collecting { try body() } }
            if let notes, !recorded.isEmpty { notes.pointee = strdup(JSONValue.array(recorded.map(\.json)).text) }
            return result
        } catch {
            report("\(error)", failure)
            return nil
        }
    }

    /// The host's context as the stage's `StageContext`; the stage runs as if alone (`good`
    /// scaling, no pixel limit, never asked to stop) when the host gave none or a shorter one.
    private static func context(_ given: UnsafePointer<imagepipe_stage_context>?) -> StageContext {
        guard let given, Int(given.pointee.size) >= MemoryLayout<imagepipe_stage_context>.size else { return StageContext() }
        let host = given.pointee
        // The host's run and its should_stop stay valid until the call this context came with returns.
        let asking = host.should_stop.map { shouldStop in
            let run = HostRun(pointer: host.run)
            return Cancellation(asking: { shouldStop(run.pointer) != 0 })
        }
        return StageContext(scaling: ScalingMode(interfaceNumber: host.scaling), maxPixels: host.max_pixels > 0 ? Int(host.max_pixels) : nil,
                            cancellation: asking)
    }

    /// The host's `run`, which only the host's `should_stop` reads.
    private struct HostRun: @unchecked Sendable {
        let pointer: UnsafeRawPointer?
    }

    /// The input rows output rows are made from, of the input the host describes.
    private static let inputRows: @convention(c) (UnsafeMutableRawPointer?, Int32, Int32, UnsafePointer<imagepipe_reduction>?,
                                                  UnsafeMutablePointer<Int32>?, UnsafeMutablePointer<Int32>?,
                                                  UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 = {
        stage, firstRow, rowCount, given, inputFirst, inputCount, failure in
        do {
            let rows = try box(stage).stage.inputRows(forOutput: Int(firstRow)..<(Int(firstRow) + Int(rowCount)), of: reduction(given))
            inputFirst?.pointee = Int32(clamping: rows.lowerBound)
            inputCount?.pointee = Int32(clamping: rows.count)
            return 0
        } catch {
            report("\(error)", failure)
            return 1
        }
    }

    /// Shrink-on-load (`ShrinkOnLoadStage`): 0 when the stage needs every pixel, 1 with the
    /// smallest decode it needs, 2 with that and the resampling that is its whole work.
    private static let shrink: @convention(c) (UnsafeMutableRawPointer?, Int32, Int32, UnsafeMutablePointer<Int32>?, UnsafeMutablePointer<Int32>?,
                                               UnsafeMutablePointer<Int32>?, UnsafeMutablePointer<Int32>?, UnsafeMutablePointer<Int32>?,
                                               UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 = {
        stage, width, height, reducedWidth, reducedHeight, wholeWidth, wholeHeight, kernel, failure in
        do {
            let input = Size(Int(width), Int(height))
            guard let shrinking = box(stage).stage.shrinkOnLoad, let size = try shrinking.reducedInput(for: input) else { return 0 }
            reducedWidth?.pointee = Int32(clamping: size.width)
            reducedHeight?.pointee = Int32(clamping: size.height)
            guard let resampling = try shrinking.wholeResampling(for: input) else { return 1 }
            wholeWidth?.pointee = Int32(clamping: resampling.size.width)
            wholeHeight?.pointee = Int32(clamping: resampling.size.height)
            kernel?.pointee = resampling.kernel?.interfaceNumber ?? 0
            return 2
        } catch {
            report("\(error)", failure)
            return -1
        }
    }

    /// The host's description of the input, checked.
    private static func reduction(_ given: UnsafePointer<imagepipe_reduction>?) throws -> DecodeReduction {
        guard let given, given.pointee.size >= UInt32(MemoryLayout<imagepipe_reduction>.size) else {
            throw StageError("the host gave no input description, or a shorter one than this plugin knows")
        }
        let r = given.pointee
        guard r.full_width > 0, r.full_height > 0, r.decoded_width > 0, r.decoded_height > 0,
              [r.scale_x, r.scale_y, r.offset_x, r.offset_y].allSatisfy(\.isFinite) else {
            throw StageError("the host gave an input of no size or with a map that is not finite")
        }
        return DecodeReduction(fullSize: Size(Int(r.full_width), Int(r.full_height)), decodedSize: Size(Int(r.decoded_width), Int(r.decoded_height)),
                               mapping: PixelMapping(scaleX: r.scale_x, scaleY: r.scale_y, offsetX: r.offset_x, offsetY: r.offset_y))
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

    /// The stage the survey made, in the run's context, with what it noted written to `notes`.
    private static let surveyFinish: @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<imagepipe_stage_context>?,
                                                     UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
                                                     UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> UnsafeMutableRawPointer? = {
        survey, context, notes, failure in
        made(context, notes, failure) { Unmanaged.passRetained(StageBox(try surveyBox(survey).finish())).toOpaque() }
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

    private static let warpRender: @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<imagepipe_stage_context>?, UnsafePointer<imagepipe_rect>?,
                                                   UnsafeMutableRawPointer?, UnsafePointer<imagepipe_rect>?, Int32, Int32,
                                                   UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> UnsafeMutableRawPointer? = {
        stage, context, output, pixbuf, input, width, height, failure in
        made(context, nil, failure) {
            guard let warping = box(stage).stage as? any WarpingStage, let output else { throw StageError("no warping stage or no rectangle") }
            let source = pixbuf.map { Image(retaining: OpaquePointer($0)) }
            let made = try warping.render(rect(output.pointee), from: source, at: source == nil ? nil : input.map { rect($0.pointee) },
                                          inputSize: Size(Int(width), Int(height)))
            return UnsafeMutableRawPointer(made.retainedPixbuf())
        }
    }

    /// What the stage is, so that the host streams it and plans it as it would the stage
    /// compiled in: its class (an area stage's radius written to `radius`) and its promises.
    private static let traits: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutablePointer<Int32>?) -> UInt32 = { stage, radius in
        let stage = box(stage).stage
        let stageClass: UInt32
        switch stage.stageClass {
        case .whole: stageClass = IMAGEPIPE_CLASS_WHOLE
        case .point: stageClass = IMAGEPIPE_CLASS_POINT
        case let .area(size):
            stageClass = IMAGEPIPE_CLASS_AREA
            radius?.pointee = Int32(clamping: size)
        case .resample: stageClass = IMAGEPIPE_CLASS_RESAMPLE
        }
        return stageClass | (stage.outputSizeIsUpperBound ? IMAGEPIPE_STAGE_SIZE_UPPER_BOUND : 0)
            | (stage.makesGray ? IMAGEPIPE_STAGE_MAKES_GRAY : 0)
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

    private static let destroy: @convention(c) (UnsafeMutableRawPointer?) -> Void = { stage in
        if let stage { Unmanaged<StageBox>.fromOpaque(stage).release() }
    }
}
