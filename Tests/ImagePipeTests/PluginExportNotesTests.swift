import CImagePipePlugin
import Testing
import ImagePipe
import ImagePipePluginKit
import TestSupport

/// `note-size`: passes the picture on and notes its size, for the plugin table's notes.
struct NoteSize: Transform, DeclaredStage {
    static let declaration = StageDeclaration("note-size", summary: "Note the picture's size (test stage)", start: NoteSize(), [])
    func outputSize(for input: Size) -> Size { input }
    func makeRows(_ rows: Range<Int>, from input: StageInput) throws -> Image {
        let image = input.pixels
        StageNote.record(StageNote(name: "size", text: "\(image.size)", value: .array([.number(Double(image.width)), .number(Double(image.height))])))
        return image
    }
}

/// `note-context`: passes the picture on and notes the context it was applied in, then stops
/// if the run asks.
struct NoteContext: Transform, DeclaredStage {
    static let declaration = StageDeclaration("note-context", summary: "Note the stage's context (test stage)", start: NoteContext(), [])
    func outputSize(for input: Size) -> Size { input }
    func makeRows(_ rows: Range<Int>, from input: StageInput) throws -> Image {
        let image = input.pixels
        let context = StageContext.current
        StageNote.record(StageNote(name: "context", text: "", value: .array([
            .string(context.scaling.rawValue), .number(Double(context.maxPixels ?? 0)), .number(context.cancellation == nil ? 0 : 1),
        ])))
        try StageContext.checkCancelled()
        return image
    }
}

/// ImagePipePluginKit's table hands the host what a stage recorded in a make_rows call through
/// that call's `notes` (the host side is PluginLoadingTests.aPluginsNotesReachTheRunsJSON), and
/// makes the rows in the context the host gave with the call.
@Suite struct PluginExportNotesTests {
    /// One table per process (`PluginExport.table` makes it once), shared by the tests of this
    /// file and PluginWholeResamplingTests.
    nonisolated(unsafe) static let exported = PluginExport.table(for: Plugin(name: "noting", summary: "",
                                                                              stages: [NoteSize.self, NoteContext.self, HalveWhole.self]))
        .assumingMemoryBound(to: imagepipe_plugin.self)
    static var table: imagepipe_plugin { exported.pointee }

    /// A picture's whole input, as the host describes it.
    static func whole(_ size: Size) -> imagepipe_reduction {
        imagepipe_reduction(size: UInt32(MemoryLayout<imagepipe_reduction>.size), full_width: Int32(size.width), full_height: Int32(size.height),
                            decoded_width: Int32(size.width), decoded_height: Int32(size.height), scale_x: 1, scale_y: 1, offset_x: 0, offset_y: 0)
    }

    /// `stage`'s make_rows on the whole of `picture` in `context`: whether it made a picture, its
    /// notes, its error.
    static func madeRows(_ stage: UnsafeMutableRawPointer, of picture: Image,
                         in context: imagepipe_stage_context?) -> (picture: Image?, notes: String?, error: String?) {
        var notes: UnsafeMutablePointer<CChar>?, failure: UnsafeMutablePointer<CChar>?
        var input = whole(picture.size)
        let pixbuf = picture.retainedPixbuf()
        defer { _ = Image(adopting: pixbuf) } // gives the reference back
        let result: UnsafeMutableRawPointer?
        if var context {
            result = table.make_rows(stage, &context, UnsafeMutableRawPointer(pixbuf), 0, &input, 0, Int32(picture.height), &notes, &failure)
        } else {
            result = table.make_rows(stage, nil, UnsafeMutableRawPointer(pixbuf), 0, &input, 0, Int32(picture.height), &notes, &failure)
        }
        let text = notes.map { text in defer { table.free_string(text) }; return String(cString: text) }
        let message = failure.map { text in defer { table.free_string(text) }; return String(cString: text) }
        return (result.map { Image(adopting: OpaquePointer($0)) }, text, message)
    }

    @Test func aCallsNotesComeWithIt() throws {
        var error: UnsafeMutablePointer<CChar>?
        let stage = try #require(Self.table.create("note-size", "", &error))
        defer { Self.table.destroy(stage) }
        let made = Self.madeRows(stage, of: try Synthetic.gradient(5, 3), in: nil)
        #expect(made.picture?.size == Size(5, 3))
        #expect(made.notes == #"[{"name":"size","text":"5x3","value":[5,3]}]"#)
        #expect(made.error == nil)
    }

    /// The context's scaling, limit and should_stop reach the stage in the call they came with,
    /// and that one only.
    @Test func aStageWorksInTheContextTheHostGave() throws {
        var error: UnsafeMutablePointer<CChar>?
        let stage = try #require(Self.table.create("note-context", "", &error))
        defer { Self.table.destroy(stage) }
        let picture = try Synthetic.gradient(3, 2)
        let never: @convention(c) (UnsafeRawPointer?) -> Int32 = { _ in 0 }
        let always: @convention(c) (UnsafeRawPointer?) -> Int32 = { _ in 1 }
        let size = UInt32(MemoryLayout<imagepipe_stage_context>.size)

        let given = Self.madeRows(stage, of: picture, in: imagepipe_stage_context(size: size, scaling: 0, max_pixels: 1234, should_stop: never, run: nil))
        #expect(given.picture != nil)
        #expect(given.notes == #"[{"name":"context","text":"","value":["fast",1234,1]}]"#)
        let none = Self.madeRows(stage, of: picture, in: nil)
        #expect(none.notes == #"[{"name":"context","text":"","value":["good",178956970,0]}]"#, "a context is for one call")
        let stop = Self.madeRows(stage, of: picture, in: imagepipe_stage_context(size: size, scaling: 2, max_pixels: 0, should_stop: always, run: nil))
        #expect(stop.picture == nil)
        #expect(stop.error?.contains("stopped") == true, "\(stop.error ?? "no error")")
    }
}
