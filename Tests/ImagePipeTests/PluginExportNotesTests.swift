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

/// ImagePipePluginKit's table hands the host what a stage recorded in its last apply, once,
/// on the thread that applied it (the host side is PluginLoadingTests.aPluginsNotesReachTheRunsJSON),
/// and applies a stage in the context the host gave for it.
@Suite struct PluginExportNotesTests {
    /// One table per process (`PluginExport.table` makes it once), shared by the tests of this
    /// file and PluginWholeResamplingTests.
    nonisolated(unsafe) static let exported = PluginExport.table(for: Plugin(name: "noting", summary: "",
                                                                              stages: [NoteSize.self, NoteContext.self, HalveWhole.self]))
        .assumingMemoryBound(to: imagepipe_plugin.self)
    static let table = exported.pointee

    @Test func theLastApplysNotesAreGivenOnceOnItsThread() throws {
        let table = Self.table
        var error: UnsafeMutablePointer<CChar>?
        let stage = try #require(table.create("note-size", "", &error))
        defer { table.destroy(stage) }
        let picture = try Synthetic.gradient(5, 3)
        let pixbuf = picture.retainedPixbuf()
        let owner = Image(adopting: pixbuf) // gives the reference back at the end
        let result = try #require(table.apply(stage, UnsafeMutableRawPointer(pixbuf), &error))
        #expect(Image(adopting: OpaquePointer(result)).size == Size(5, 3))
        withExtendedLifetime(owner) {}
        let text = try #require(table.notes(stage))
        #expect(String(cString: text) == #"[{"name":"size","text":"5x3","value":[5,3]}]"#)
        table.free_string(text)
        #expect(table.notes(stage) == nil, "given once")
    }

    /// set_context's scaling, limit and should_stop reach the stage's next apply on the thread,
    /// and that one only.
    @Test func aStageWorksInTheContextTheHostGave() throws {
        let table = Self.table
        var error: UnsafeMutablePointer<CChar>?
        let stage = try #require(table.create("note-context", "", &error))
        defer { table.destroy(stage) }
        let owner = try Synthetic.gradient(3, 2)
        func applied(_ context: imagepipe_stage_context?) -> (picture: Bool, notes: String?, error: String?) {
            if var context { table.set_context(stage, &context) }
            var failure: UnsafeMutablePointer<CChar>?
            let pixbuf = owner.retainedPixbuf()
            defer { _ = Image(adopting: pixbuf) } // gives the reference back
            let result = table.apply(stage, UnsafeMutableRawPointer(pixbuf), &failure)
            if let result { _ = Image(adopting: OpaquePointer(result)) }
            let notes = table.notes(stage).map { text in defer { table.free_string(text) }; return String(cString: text) }
            let message = failure.map { text in defer { table.free_string(text) }; return String(cString: text) }
            return (result != nil, notes, message)
        }
        let never: @convention(c) (UnsafeRawPointer?) -> Int32 = { _ in 0 }
        let always: @convention(c) (UnsafeRawPointer?) -> Int32 = { _ in 1 }
        let size = UInt32(MemoryLayout<imagepipe_stage_context>.size)

        let given = applied(imagepipe_stage_context(size: size, scaling: 0, max_pixels: 1234, should_stop: never, run: nil))
        #expect(given.picture)
        #expect(given.notes == #"[{"name":"context","text":"","value":["fast",1234,1]}]"#)
        let none = applied(nil)
        #expect(none.notes == #"[{"name":"context","text":"","value":["good",178956970,0]}]"#, "a context is for one apply")
        let stop = applied(imagepipe_stage_context(size: size, scaling: 2, max_pixels: 0, should_stop: always, run: nil))
        #expect(!stop.picture)
        #expect(stop.error?.contains("stopped") == true, "\(stop.error ?? "no error")")
    }
}
