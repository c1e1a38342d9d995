import CImagePipePlugin

/// A stage made by a plugin loaded at run time, used through the C interface of
/// `imagepipe_plugin.h`: its arguments cross as canonical text, pictures as GdkPixbufs.
struct ExternalStage: ShrinkOnLoadStage, @unchecked Sendable {
    /// Stands in for the static schema a compiled type has; the real one is `stageSchema`.
    static let schema = Schema(name: "external-stage", summary: "A stage from a plugin loaded at run time", parameters: [])

    let stageSchema: Schema
    let arguments: Arguments

    /// A plugin's parameters of path kind name files it reads: no output may replace them, and
    /// `serve` refuses an address that names any, as it refuses a compiled stage's.
    var filesRead: [String] {
        stageSchema.parameters.compactMap { parameter in
            guard parameter.type == .path, case let .string(path)? = arguments[parameter.name], !path.isEmpty else { return nil }
            return path
        }
    }
    let handle: Handle

    /// A loaded plugin's function table; the library is never unloaded, so it outlives every use.
    struct Table: @unchecked Sendable {
        let pointer: UnsafePointer<imagepipe_plugin>

        /// The fields every plugin of this interface version has: all up to `free_string`.
        static let requiredSize = MemoryLayout<imagepipe_plugin>.offset(of: \imagepipe_plugin.notes)!

        /// Whether the plugin's table is long enough to hold the field at `field`.
        private func has(_ field: PartialKeyPath<imagepipe_plugin>) -> Bool {
            Int(pointer.pointee.table_size) >= MemoryLayout<imagepipe_plugin>.offset(of: field)! + MemoryLayout<UnsafeRawPointer>.size
        }

        /// The plugin's `notes`, `traits`, `explain` and `area_radius`, when its table holds them.
        var notes: (@convention(c) (UnsafeMutableRawPointer?) -> UnsafeMutablePointer<CChar>?)? {
            has(\imagepipe_plugin.notes) ? pointer.pointee.notes : nil
        }
        var traits: (@convention(c) (UnsafeMutableRawPointer?) -> UInt32)? {
            has(\imagepipe_plugin.traits) ? pointer.pointee.traits : nil
        }
        var explain: (@convention(c) (UnsafeMutableRawPointer?, Int32, Int32) -> UnsafeMutablePointer<CChar>?)? {
            has(\imagepipe_plugin.explain) ? pointer.pointee.explain : nil
        }
        var areaRadius: (@convention(c) (UnsafeMutableRawPointer?) -> Int32)? {
            has(\imagepipe_plugin.area_radius) ? pointer.pointee.area_radius : nil
        }
        var applyWindow: ApplyWindow? { has(\imagepipe_plugin.apply_window) ? pointer.pointee.apply_window : nil }
        var inputRows: InputRows? { has(\imagepipe_plugin.input_rows) ? pointer.pointee.input_rows : nil }
        var setContext: SetContext? { has(\imagepipe_plugin.set_context) ? pointer.pointee.set_context : nil }
        /// The three fields of a stage that takes a reduced decode, when the table holds them all.
        var reduced: Reduced? {
            guard has(\imagepipe_plugin.apply_window_reduced), let size = pointer.pointee.reduced_input,
                  let rows = pointer.pointee.input_rows_reduced, let apply = pointer.pointee.apply_window_reduced else { return nil }
            return Reduced(size: size, inputRows: rows, applyWindow: apply)
        }
        /// A stage's `whole_resampling`, when the table holds it beside the reduced decode's fields.
        var wholeResampling: WholeResamplingField? {
            guard reduced != nil, has(\imagepipe_plugin.whole_resampling) else { return nil }
            return pointer.pointee.whole_resampling
        }
        /// The four fields of a stage that surveys, when the table holds them all.
        var survey: SurveyFields? {
            guard has(\imagepipe_plugin.survey_free), let begin = pointer.pointee.survey_begin, let look = pointer.pointee.survey_look,
                  let finish = pointer.pointee.survey_finish, let free = pointer.pointee.survey_free else { return nil }
            return SurveyFields(begin: begin, look: look, finish: finish, free: free)
        }
        /// The three fields of a stage that warps, when the table holds them all.
        var warp: WarpFields? {
            guard has(\imagepipe_plugin.warp_render), let warps = pointer.pointee.warps, let inputRect = pointer.pointee.warp_input_rect,
                  let render = pointer.pointee.warp_render else { return nil }
            return WarpFields(warps: warps, inputRect: inputRect, render: render)
        }
    }

    typealias ErrorOut = UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
    typealias WholeResamplingField = @convention(c) (UnsafeMutableRawPointer?, Int32, Int32, UnsafeMutablePointer<Int32>?,
                                                     UnsafeMutablePointer<Int32>?, UnsafeMutablePointer<Int32>?, ErrorOut) -> Int32

    /// A plugin's `survey_begin`, `survey_look`, `survey_finish` and `survey_free`.
    struct SurveyFields {
        let begin: @convention(c) (UnsafeMutableRawPointer?, ErrorOut) -> UnsafeMutableRawPointer?
        let look: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?, Int32, Int32, Int32, ErrorOut) -> Int32
        let finish: @convention(c) (UnsafeMutableRawPointer?, ErrorOut) -> UnsafeMutableRawPointer?
        let free: @convention(c) (UnsafeMutableRawPointer?) -> Void
    }

    /// A plugin's `warps`, `warp_input_rect` and `warp_render`.
    struct WarpFields {
        let warps: @convention(c) (UnsafeMutableRawPointer?, Int32, Int32) -> Int32
        let inputRect: @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<imagepipe_rect>?, Int32, Int32, UnsafeMutablePointer<imagepipe_rect>?,
                                       ErrorOut) -> Int32
        let render: @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<imagepipe_rect>?, UnsafeMutableRawPointer?, UnsafePointer<imagepipe_rect>?,
                                    Int32, Int32, ErrorOut) -> UnsafeMutableRawPointer?
    }

    /// A plugin's `reduced_input`, `input_rows_reduced` and `apply_window_reduced`.
    struct Reduced {
        let size: @convention(c) (UnsafeMutableRawPointer?, Int32, Int32, UnsafeMutablePointer<Int32>?, UnsafeMutablePointer<Int32>?,
                                  UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32
        let inputRows: @convention(c) (UnsafeMutableRawPointer?, Int32, Int32, UnsafePointer<imagepipe_reduction>?, UnsafeMutablePointer<Int32>?,
                                       UnsafeMutablePointer<Int32>?, UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32
        let applyWindow: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?, Int32, UnsafePointer<imagepipe_reduction>?, Int32, Int32,
                                         UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> UnsafeMutableRawPointer?
    }

    typealias ApplyWindow = @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?, Int32, Int32, Int32, Int32, Int32,
                                            UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> UnsafeMutableRawPointer?
    typealias SetContext = @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<imagepipe_stage_context>?) -> Void
    typealias InputRows = @convention(c) (UnsafeMutableRawPointer?, Int32, Int32, Int32, Int32, UnsafeMutablePointer<Int32>?,
                                          UnsafeMutablePointer<Int32>?, UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32

    /// Owns the plugin's stage object.
    final class Handle: @unchecked Sendable {
        let table: UnsafePointer<imagepipe_plugin>
        let stage: UnsafeMutableRawPointer

        init(table: UnsafePointer<imagepipe_plugin>, stage: UnsafeMutableRawPointer) {
            self.table = table
            self.stage = stage
        }

        deinit { table.pointee.destroy(stage) }

        /// Runs a plugin call that reports failure through `char **error`.
        func call<T>(_ body: (UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> T?) throws -> T {
            var error: UnsafeMutablePointer<CChar>?
            let result = body(&error)
            if let error {
                let message = String(cString: error)
                table.pointee.free_string(error)
                throw StageError(message)
            }
            guard let result else { throw StageError("the plugin gave no result and no reason") }
            return result
        }
    }

    init(arguments: Arguments) throws {
        throw ArgumentError("stages of plugins loaded at run time are made by their plugin")
    }

    /// Asks the plugin to make the stage named by `schema` with these arguments.
    init(table plugin: Table, schema: Schema, arguments: Arguments) throws {
        let table = plugin.pointer
        let text = schema.canonicalText(of: arguments).dropFirst(schema.name.count).drop { $0 == " " }
        var error: UnsafeMutablePointer<CChar>?
        let made = table.pointee.create(schema.name, String(text), &error)
        if let error {
            let message = String(cString: error)
            table.pointee.free_string(error)
            throw ArgumentError(message)
        }
        guard let made else { throw ArgumentError("its plugin made no stage and gave no reason") }
        self.init(table: plugin, schema: schema, arguments: arguments, made: made)
    }

    /// The stage `made` by the plugin (by create, or by a survey of a stage of `schema`), owned from now on.
    init(table plugin: Table, schema: Schema, arguments: Arguments, made: UnsafeMutableRawPointer) {
        stageSchema = schema
        self.arguments = arguments
        handle = Handle(table: plugin.pointer, stage: made)
        notes = plugin.notes
        explain = plugin.explain
        traits = plugin.traits?(made) ?? 0
        areaRadius = Int(plugin.areaRadius?(made) ?? -1)
        applyWindow = plugin.applyWindow
        inputRowsOf = plugin.inputRows
        setContext = plugin.setContext
        reduced = plugin.reduced
        wholeResamplingField = plugin.wholeResampling
        surveyFields = traits & (IMAGEPIPE_STAGE_SURVEYS_TO_POINT | IMAGEPIPE_STAGE_SURVEYS_TO_RESAMPLE) != 0 ? plugin.survey : nil
        warpFields = plugin.warp
    }

    /// The survey fields of a stage whose traits say it surveys; nil for any other.
    let surveyFields: SurveyFields?
    let warpFields: WarpFields?

    private let reduced: Reduced?
    private let wholeResamplingField: WholeResamplingField?

    let applyWindow: ApplyWindow?
    private let setContext: SetContext?
    let inputRowsOf: InputRows?

    private let notes: (@convention(c) (UnsafeMutableRawPointer?) -> UnsafeMutablePointer<CChar>?)?
    private let explain: (@convention(c) (UnsafeMutableRawPointer?, Int32, Int32) -> UnsafeMutablePointer<CChar>?)?
    /// What the plugin's stage promised (`IMAGEPIPE_STAGE_*`), asked once when it was made.
    let traits: UInt32

    /// An area stage's radius, asked once when it was made; -1 for any other stage.
    private let areaRadius: Int

    var stageClass: StageClass {
        // Until its survey has made the stage it works as.
        if surveyedClass != .whole { return .whole }
        if traits & IMAGEPIPE_STAGE_ROW_LOCAL != 0 { return .point }
        if areaRadius >= 0 { return .area(radius: areaRadius) }
        // A resample stage streams only through both of its fields.
        if traits & IMAGEPIPE_STAGE_RESAMPLE != 0, applyWindow != nil, inputRowsOf != nil { return .resample }
        return .whole
    }
    var sizeIsUpperBound: Bool { traits & IMAGEPIPE_STAGE_SIZE_UPPER_BOUND != 0 }
    var makesGray: Bool { traits & IMAGEPIPE_STAGE_MAKES_GRAY != 0 }
    func outputHasAlpha(inputHasAlpha: Bool) -> Bool {
        inputHasAlpha ? traits & IMAGEPIPE_STAGE_DROPS_ALPHA == 0 : traits & IMAGEPIPE_STAGE_ADDS_ALPHA != 0
    }

    func explanation(for input: Size) throws -> String? {
        guard let explain, input.width <= Int(Int32.max), input.height <= Int(Int32.max),
              let text = explain(handle.stage, Int32(input.width), Int32(input.height)) else { return nil }
        defer { handle.table.pointee.free_string(text) }
        return String(cString: text)
    }

    static func == (a: ExternalStage, b: ExternalStage) -> Bool {
        a.stageSchema.name == b.stageSchema.name && a.arguments == b.arguments
    }

    func outputSize(for input: Size) throws -> Size {
        try Self.checkInterfaceSize(input)
        var width: Int32 = 0, height: Int32 = 0
        _ = try handle.call { error -> Bool? in
            handle.table.pointee.output_size(handle.stage, Int32(input.width), Int32(input.height), &width, &height, error) == 0 ? true : nil
        }
        guard width > 0, height > 0 else { throw StageError("the plugin planned an empty \(width)x\(height) picture") }
        return Size(Int(width), Int(height))
    }

    func makeRows(_ rows: Range<Int>, from input: StageInput) throws -> Image {
        if !input.picture.isFull { return try makeRows(rows, fromReduced: input) }
        let size = input.picture.decodedSize
        let whole = input.top == 0 && input.pixels.height == size.height
        // The whole picture goes through the plugin's apply, which every plugin has; strips and
        // windows through apply_window, where the plugin gives it.
        if whole, try stageClass == .whole || rows == 0..<outputSize(for: size).height { return try apply(to: input.pixels) }
        guard let applyWindow else {
            // A plugin without apply_window: a point stage's strip is a picture of its own, an
            // area stage's window is made whole and the rows kept.
            let made = try apply(to: input.pixels)
            let local = input.local(rows)
            guard stageClass != .point, local != 0..<made.height else { return made }
            return try made.cropped(to: Rect(x: 0, y: local.lowerBound, width: made.width, height: local.count))
        }
        try Self.checkInterfaceSize(size)
        let result = Image(adopting: OpaquePointer(try inContext { try handle.call { error in
            applyWindow(handle.stage, UnsafeMutableRawPointer(input.pixels.pixbuf), Int32(input.top), Int32(size.width), Int32(size.height),
                        Int32(rows.lowerBound), Int32(rows.count), error)
        } }))
        try recordNotes()
        return result
    }

    /// The plugin's apply on a whole picture.
    private func apply(to image: Image) throws -> Image {
        let result = Image(adopting: OpaquePointer(try inContext { try handle.call { error in
            handle.table.pointee.apply(handle.stage, UnsafeMutableRawPointer(image.pixbuf), error)
        } }))
        try recordNotes()
        return result
    }

    func inputRows(forOutput rows: Range<Int>, of input: DecodeReduction) throws -> Range<Int> {
        if !input.isFull { return try inputRows(forOutput: rows, ofReduced: input) }
        let inputSize = input.decodedSize
        guard let inputRowsOf, stageClass == .resample || surveyedClass == .resample else {
            return try defaultInputRows(forOutput: rows, of: input)
        }
        var first: Int32 = 0, count: Int32 = 0
        _ = try handle.call { error -> Bool? in
            inputRowsOf(handle.stage, Int32(rows.lowerBound), Int32(rows.count), Int32(inputSize.width), Int32(inputSize.height),
                        &first, &count, error) == 0 ? true : nil
        }
        // Checked before a range is made of them: a negative count would trap in the range.
        guard count > 0, first >= 0, Int(first) + Int(count) <= inputSize.height else {
            throw StageError("the plugin named input rows \(first) to \(Int(first) + Int(count) - 1) of a \(inputSize) picture")
        }
        return Int(first)..<(Int(first) + Int(count))
    }

    func wholeResampling(for input: Size) throws -> WholeResampling? {
        guard let field = wholeResamplingField else { return nil }
        try Self.checkInterfaceSize(input)
        var width: Int32 = 0, height: Int32 = 0, kernel: Int32 = 0
        let answer = try handle.call { error -> Int32? in
            let answer = field(handle.stage, Int32(input.width), Int32(input.height), &width, &height, &kernel, error)
            return answer < 0 ? nil : answer
        }
        guard answer == 1 else { return nil }
        guard width > 0, height > 0, width < input.width, height < input.height, kernel == 0 || Kernel(interfaceNumber: kernel) != nil else {
            throw StageError("the plugin said it resamples a \(input) picture to \(width)x\(height) with kernel \(kernel)")
        }
        return WholeResampling(size: Size(Int(width), Int(height)), kernel: Kernel(interfaceNumber: kernel))
    }

    func reducedInput(for input: Size) throws -> Size? {
        guard let reduced else { return nil }
        try Self.checkInterfaceSize(input)
        var width: Int32 = 0, height: Int32 = 0
        let answer = try handle.call { error -> Int32? in
            let answer = reduced.size(handle.stage, Int32(input.width), Int32(input.height), &width, &height, error)
            return answer < 0 ? nil : answer
        }
        guard answer == 1 else { return nil }
        guard width > 0, height > 0, width <= input.width, height <= input.height else {
            throw StageError("the plugin asked for a \(width)x\(height) decode of a \(input) picture")
        }
        return Size(Int(width), Int(height))
    }

    /// `inputRows(forOutput:of:)` on the rows of a decode reduced for the stage.
    private func inputRows(forOutput rows: Range<Int>, ofReduced reduction: DecodeReduction) throws -> Range<Int> {
        guard let reduced else { throw StageError("\(stageSchema.name) was given a decode reduced for it, though it asked for none") }
        guard stageClass == .resample else { return 0..<reduction.decodedSize.height }
        var first: Int32 = 0, count: Int32 = 0
        var given = try Self.interface(reduction)
        _ = try handle.call { error -> Bool? in
            reduced.inputRows(handle.stage, Int32(rows.lowerBound), Int32(rows.count), &given, &first, &count, error) == 0 ? true : nil
        }
        guard count > 0, first >= 0, Int(first) + Int(count) <= reduction.decodedSize.height else {
            throw StageError("the plugin named input rows \(first) to \(Int(first) + Int(count) - 1) of a \(reduction.decodedSize) decode")
        }
        return Int(first)..<(Int(first) + Int(count))
    }

    /// `makeRows(_:from:)` on the rows of a decode reduced for the stage (the whole decode, for a
    /// stage that is not a resample stage).
    private func makeRows(_ rows: Range<Int>, fromReduced input: StageInput) throws -> Image {
        guard let reduced else { throw StageError("\(stageSchema.name) was given a decode reduced for it, though it asked for none") }
        var given = try Self.interface(input.picture)
        let result = Image(adopting: OpaquePointer(try inContext { try handle.call { error in
            reduced.applyWindow(handle.stage, UnsafeMutableRawPointer(input.pixels.pixbuf), Int32(input.top), &given,
                                Int32(rows.lowerBound), Int32(rows.count), error)
        } }))
        try recordNotes()
        return result
    }

    /// A size the interface's 32-bit numbers hold, else a refusal.
    static func checkInterfaceSize(_ size: Size) throws {
        guard size.width <= Int(Int32.max), size.height <= Int(Int32.max) else { throw StageError("\(size) is too large for the plugin interface") }
    }

    /// `reduction` as the interface gives it.
    private static func interface(_ reduction: DecodeReduction) throws -> imagepipe_reduction {
        try checkInterfaceSize(reduction.fullSize)
        let mapping = reduction.mapping
        return imagepipe_reduction(size: UInt32(MemoryLayout<imagepipe_reduction>.size),
                                   full_width: Int32(reduction.fullSize.width), full_height: Int32(reduction.fullSize.height),
                                   decoded_width: Int32(reduction.decodedSize.width), decoded_height: Int32(reduction.decodedSize.height),
                                   scale_x: mapping.scaleX, scale_y: mapping.scaleY, offset_x: mapping.offsetX, offset_y: mapping.offsetY)
    }

    /// `apply`, a call of the plugin's apply on this thread, with the run's context given to the
    /// plugin first (`set_context`), kept alive until the call returns.
    func inContext<T>(_ apply: () throws -> T) rethrows -> T {
        guard let setContext else { return try apply() }
        let context = StageContext.current
        return try withExtendedLifetime(context.cancellation) {
            var given = imagepipe_stage_context(
                size: UInt32(MemoryLayout<imagepipe_stage_context>.size),
                scaling: context.scaling.interfaceNumber,
                max_pixels: Int64(context.maxPixels ?? 0),
                should_stop: context.cancellation == nil ? nil : Self.shouldStop,
                run: context.cancellation.map { UnsafeRawPointer(Unmanaged.passUnretained($0).toOpaque()) })
            setContext(handle.stage, &given)
            return try apply()
        }
    }

    /// What the plugin asks while it works: whether the run it works for is to stop.
    private static let shouldStop: @convention(c) (UnsafeRawPointer?) -> Int32 = { run in
        guard let run else { return 0 }
        return Unmanaged<Cancellation>.fromOpaque(run).takeUnretainedValue().isCancelled ? 1 : 0
    }

    /// Passes on what the plugin's stage decided in the apply just made, as the run's notes.
    func recordNotes() throws {
        guard let notes, let text = notes(handle.stage) else { return }
        defer { handle.table.pointee.free_string(text) }
        let said = String(cString: text)
        guard let items = JSONValue.parse(said)?.arrayValue else { throw StageError("the plugin's notes are not a JSON array: \(said.prefix(80))") }
        for item in items {
            guard let name = item["name"]?.stringValue, let text = item["text"]?.stringValue, let value = item["value"] else {
                throw StageError("a note of the plugin lacks its name, text or value: \(item.text.prefix(80))")
            }
            StageNote.record(StageNote(name: name, text: text, value: value))
        }
    }
}
