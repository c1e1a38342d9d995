import CImagePipePlugin
import Testing
import ImagePipe
import ImagePipePluginKit
import TestSupport

/// `note-size`: passes the picture on and notes its size, for the plugin table's notes.
struct NoteSize: Transform, DeclaredStage {
    static let declaration = StageDeclaration("note-size", summary: "Note the picture's size (test stage)", start: NoteSize(), [])
    func outputSize(for input: Size) -> Size { input }
    func apply(to image: Image) throws -> Image {
        StageNote.record(StageNote(name: "size", text: "\(image.size)", value: .array([.number(Double(image.width)), .number(Double(image.height))])))
        return image
    }
}

/// ImagePipePluginKit's table hands the host what a stage recorded in its last apply, once,
/// on the thread that applied it (the host side is PluginLoadingTests.aPluginsNotesReachTheRunsJSON).
@Suite struct PluginExportNotesTests {
    @Test func theLastApplysNotesAreGivenOnceOnItsThread() throws {
        let table = PluginExport.table(for: Plugin(name: "noting", summary: "", stages: [NoteSize.self]))
            .assumingMemoryBound(to: imagepipe_plugin.self).pointee
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
}
