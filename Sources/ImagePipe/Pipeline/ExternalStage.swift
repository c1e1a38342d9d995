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

        /// The fields every plugin of this interface version has: all up to `make_rows`.
        static let requiredSize = MemoryLayout<imagepipe_plugin>.offset(of: \imagepipe_plugin.make_rows)! + MemoryLayout<UnsafeRawPointer>.size

        /// Whether the plugin's table is long enough to hold the field at `field`.
        private func has(_ field: PartialKeyPath<imagepipe_plugin>) -> Bool {
            Int(pointer.pointee.table_size) >= MemoryLayout<imagepipe_plugin>.offset(of: field)! + MemoryLayout<UnsafeRawPointer>.size
        }

        /// The plugin's `shrink`, when its table holds it.
        var shrink: Shrink? { has(\imagepipe_plugin.shrink) ? pointer.pointee.shrink : nil }

        /// The four functions of a stage that surveys, when the table holds them all.
        var survey: SurveyFields? {
            guard has(\imagepipe_plugin.survey), let given = pointer.pointee.survey,
                  Int(given.pointee.size) >= MemoryLayout<imagepipe_survey_functions>.size, let begin = given.pointee.begin,
                  let look = given.pointee.look, let finish = given.pointee.finish, let free = given.pointee.free else { return nil }
            return SurveyFields(begin: begin, look: look, finish: finish, free: free)
        }

        /// The three functions of a stage that warps, when the table holds them all.
        var warp: WarpFields? {
            guard has(\imagepipe_plugin.warp), let given = pointer.pointee.warp,
                  Int(given.pointee.size) >= MemoryLayout<imagepipe_warp_functions>.size, let warps = given.pointee.warps,
                  let inputRect = given.pointee.input_rect, let render = given.pointee.render else { return nil }
            return WarpFields(warps: warps, inputRect: inputRect, render: render)
        }
    }

    typealias ErrorOut = UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
    typealias TextOut = UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
    typealias Shrink = @convention(c) (UnsafeMutableRawPointer?, Int32, Int32, UnsafeMutablePointer<Int32>?, UnsafeMutablePointer<Int32>?,
                                       UnsafeMutablePointer<Int32>?, UnsafeMutablePointer<Int32>?, UnsafeMutablePointer<Int32>?, ErrorOut) -> Int32
    typealias InputRows = @convention(c) (UnsafeMutableRawPointer?, Int32, Int32, UnsafePointer<imagepipe_reduction>?, UnsafeMutablePointer<Int32>?,
                                          UnsafeMutablePointer<Int32>?, ErrorOut) -> Int32

    /// A plugin's survey functions: `begin`, `look`, `finish` and `free`.
    struct SurveyFields {
        let begin: @convention(c) (UnsafeMutableRawPointer?, ErrorOut) -> UnsafeMutableRawPointer?
        let look: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?, Int32, Int32, Int32, ErrorOut) -> Int32
        let finish: @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<imagepipe_stage_context>?, TextOut, ErrorOut) -> UnsafeMutableRawPointer?
        let free: @convention(c) (UnsafeMutableRawPointer?) -> Void
    }

    /// A plugin's warp functions: `warps`, `input_rect` and `render`.
    struct WarpFields {
        let warps: @convention(c) (UnsafeMutableRawPointer?, Int32, Int32) -> Int32
        let inputRect: @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<imagepipe_rect>?, Int32, Int32, UnsafeMutablePointer<imagepipe_rect>?,
                                       ErrorOut) -> Int32
        let render: @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<imagepipe_stage_context>?, UnsafePointer<imagepipe_rect>?,
                                    UnsafeMutableRawPointer?, UnsafePointer<imagepipe_rect>?, Int32, Int32, ErrorOut) -> UnsafeMutableRawPointer?
    }

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
        var radius: Int32 = -1
        traits = plugin.pointer.pointee.traits?(made, &radius) ?? IMAGEPIPE_CLASS_WHOLE
        areaRadius = Int(radius)
        inputRowsOf = plugin.pointer.pointee.input_rows
        shrink = plugin.shrink
        surveyFields = traits & (IMAGEPIPE_STAGE_SURVEYS_TO_POINT | IMAGEPIPE_STAGE_SURVEYS_TO_RESAMPLE) != 0 ? plugin.survey : nil
        warpFields = plugin.warp
    }

    /// The survey functions of a stage whose traits say it surveys; nil for any other.
    let surveyFields: SurveyFields?
    let warpFields: WarpFields?
    private let shrink: Shrink?
    let inputRowsOf: InputRows?

    /// What the plugin's stage is (`IMAGEPIPE_CLASS_*`) and promised (`IMAGEPIPE_STAGE_*`),
    /// asked once when it was made.
    let traits: UInt32

    /// An area stage's radius, asked with its traits; -1 when the plugin gave none.
    private let areaRadius: Int

    var stageClass: StageClass {
        // Until its survey has made the stage it works as.
        if surveyedClass != .whole { return .whole }
        switch traits & IMAGEPIPE_CLASS_MASK {
        case IMAGEPIPE_CLASS_POINT: return .point
        // An area stage without its radius, or a resample stage without input_rows, has not said
        // which rows it needs: it runs on the whole picture.
        case IMAGEPIPE_CLASS_AREA where areaRadius >= 0: return .area(radius: areaRadius)
        case IMAGEPIPE_CLASS_RESAMPLE where inputRowsOf != nil: return .resample
        default: return .whole
        }
    }
    var sizeIsUpperBound: Bool { traits & IMAGEPIPE_STAGE_SIZE_UPPER_BOUND != 0 }
    var makesGray: Bool { traits & IMAGEPIPE_STAGE_MAKES_GRAY != 0 }
    func outputHasAlpha(inputHasAlpha: Bool) -> Bool {
        inputHasAlpha ? traits & IMAGEPIPE_STAGE_DROPS_ALPHA == 0 : traits & IMAGEPIPE_STAGE_ADDS_ALPHA != 0
    }

    func explanation(for input: Size) throws -> String? {
        var text: UnsafeMutablePointer<CChar>?
        _ = try plan(input, explanation: &text)
        guard let text else { return nil }
        defer { handle.table.pointee.free_string(text) }
        return String(cString: text)
    }

    static func == (a: ExternalStage, b: ExternalStage) -> Bool {
        a.stageSchema.name == b.stageSchema.name && a.arguments == b.arguments
    }

    func outputSize(for input: Size) throws -> Size {
        try plan(input, explanation: nil)
    }

    /// The plugin's plan for a picture of `input` size: the size it makes, and what it will do
    /// when `explanation` is given.
    private func plan(_ input: Size, explanation: TextOut) throws -> Size {
        try Self.checkInterfaceSize(input)
        var width: Int32 = 0, height: Int32 = 0
        _ = try handle.call { error -> Bool? in
            handle.table.pointee.plan(handle.stage, Int32(input.width), Int32(input.height), &width, &height, explanation, error) == 0 ? true : nil
        }
        guard width > 0, height > 0 else { throw StageError("the plugin planned an empty \(width)x\(height) picture") }
        return Size(Int(width), Int(height))
    }

    func makeRows(_ rows: Range<Int>, from input: StageInput) throws -> Image {
        if !input.picture.isFull, shrink == nil { throw unaskedReduction }
        try Self.checkInterfaceSize(input.picture.decodedSize)
        var given = try Self.interface(input.picture)
        var notes: UnsafeMutablePointer<CChar>?
        defer { if let notes { handle.table.pointee.free_string(notes) } }
        let made = try inContext { context in try handle.call { error in
            handle.table.pointee.make_rows(handle.stage, context, UnsafeMutableRawPointer(input.pixels.pixbuf), Int32(input.top), &given,
                                           Int32(rows.lowerBound), Int32(rows.count), &notes, error)
        } }
        let result = Image(adopting: OpaquePointer(made))
        try record(notes)
        return result
    }

    /// A decode reduced for a stage that has no `shrink`: a bug in the run.
    private var unaskedReduction: StageError {
        StageError("\(stageSchema.name) was given a decode reduced for it, though it asked for none")
    }

    func inputRows(forOutput rows: Range<Int>, of input: DecodeReduction) throws -> Range<Int> {
        guard let inputRowsOf, stageClass == .resample || surveyedClass == .resample else {
            guard input.isFull else {
                guard shrink != nil else { throw unaskedReduction }
                // Any class but resample takes its reduced decode whole.
                return 0..<input.decodedSize.height
            }
            return try defaultInputRows(forOutput: rows, of: input)
        }
        var first: Int32 = 0, count: Int32 = 0
        var given = try Self.interface(input)
        _ = try handle.call { error -> Bool? in
            inputRowsOf(handle.stage, Int32(rows.lowerBound), Int32(rows.count), &given, &first, &count, error) == 0 ? true : nil
        }
        // Checked before a range is made of them: a negative count would trap in the range.
        guard count > 0, first >= 0, Int(first) + Int(count) <= input.decodedSize.height else {
            throw StageError("the plugin named input rows \(first) to \(Int(first) + Int(count) - 1) of a \(input.decodedSize) picture")
        }
        return Int(first)..<(Int(first) + Int(count))
    }

    /// What the plugin's `shrink` says of a picture of `input` size: 0, 1 or 2 with the sizes.
    private func shrinking(_ input: Size) throws -> (answer: Int32, reduced: Size, whole: Size, kernel: Int32) {
        guard let shrink else { return (0, input, input, 0) }
        try Self.checkInterfaceSize(input)
        var width: Int32 = 0, height: Int32 = 0, wholeWidth: Int32 = 0, wholeHeight: Int32 = 0, kernel: Int32 = 0
        let answer = try handle.call { error -> Int32? in
            let answer = shrink(handle.stage, Int32(input.width), Int32(input.height), &width, &height, &wholeWidth, &wholeHeight, &kernel, error)
            return answer < 0 ? nil : answer
        }
        return (answer, Size(Int(width), Int(height)), Size(Int(wholeWidth), Int(wholeHeight)), kernel)
    }

    func wholeResampling(for input: Size) throws -> WholeResampling? {
        let said = try shrinking(input)
        guard said.answer == 2 else { return nil }
        let size = said.whole, kernel = said.kernel
        guard size.width > 0, size.height > 0, size.width < input.width, size.height < input.height,
              kernel == 0 || Kernel(interfaceNumber: kernel) != nil else {
            throw StageError("the plugin said it resamples a \(input) picture to \(size.width)x\(size.height) with kernel \(kernel)")
        }
        return WholeResampling(size: size, kernel: Kernel(interfaceNumber: kernel))
    }

    func reducedInput(for input: Size) throws -> Size? {
        let said = try shrinking(input)
        guard said.answer >= 1 else { return nil }
        let size = said.reduced
        guard size.width > 0, size.height > 0, size.width <= input.width, size.height <= input.height else {
            throw StageError("the plugin asked for a \(size.width)x\(size.height) decode of a \(input) picture")
        }
        return size
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

    /// `body`, a call of the plugin that makes pixels, given the run's context, which stays
    /// alive (its cancellation too) until the call returns.
    func inContext<T>(_ body: (UnsafePointer<imagepipe_stage_context>) throws -> T) rethrows -> T {
        let context = StageContext.current
        return try withExtendedLifetime(context.cancellation) {
            var given = imagepipe_stage_context(
                size: UInt32(MemoryLayout<imagepipe_stage_context>.size),
                scaling: context.scaling.interfaceNumber,
                max_pixels: Int64(context.maxPixels ?? 0),
                should_stop: context.cancellation == nil ? nil : Self.shouldStop,
                run: context.cancellation.map { UnsafeRawPointer(Unmanaged.passUnretained($0).toOpaque()) })
            return try body(&given)
        }
    }

    /// What the plugin asks while it works: whether the run it works for is to stop.
    private static let shouldStop: @convention(c) (UnsafeRawPointer?) -> Int32 = { run in
        guard let run else { return 0 }
        return Unmanaged<Cancellation>.fromOpaque(run).takeUnretainedValue().isCancelled ? 1 : 0
    }

    /// Passes on what the plugin's stage decided in the call just made (its `*notes`), as the run's notes.
    func record(_ notes: UnsafeMutablePointer<CChar>?) throws {
        guard let notes else { return }
        let said = String(cString: notes)
        guard let items = JSONValue.parse(said)?.arrayValue else { throw StageError("the plugin's notes are not a JSON array: \(said.prefix(80))") }
        for item in items {
            guard let name = item["name"]?.stringValue, let text = item["text"]?.stringValue, let value = item["value"] else {
                throw StageError("a note of the plugin lacks its name, text or value: \(item.text.prefix(80))")
            }
            StageNote.record(StageNote(name: name, text: text, value: value))
        }
    }
}
