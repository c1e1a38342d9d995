import CImagePipePlugin
import Testing
@testable import ImagePipe
import ImagePipePluginKit
import TestSupport

/// `halve-whole`: the whole picture at half its size with a box filter (test stage), which says
/// so through `wholeResampling(for:)`, so a JPEG's decoder may do it in its planes.
struct HalveWhole: ShrinkOnLoadStage, DeclaredStage {
    static let declaration = StageDeclaration("halve-whole", summary: "Halve the picture (test stage)", start: HalveWhole(), [])
    func outputSize(for input: Size) -> Size { Size(max(1, input.width / 2), max(1, input.height / 2)) }
    var stageClass: StageClass { .resample }
    func reducedInput(for input: Size) -> Size? { outputSize(for: input) }
    func wholeResampling(for input: Size) -> WholeResampling? { WholeResampling(size: outputSize(for: input), kernel: .box) }
    func inputRows(forOutput rows: Range<Int>, of reduction: DecodeReduction) throws -> Range<Int> {
        try WindowedResampling(sourceSize: reduction.decodedSize, region: reduction.wholePicture, to: outputSize(for: reduction.fullSize),
                               kernel: .box, linearLight: false).sourceRows(forOutput: rows)
    }
    func makeRows(_ rows: Range<Int>, from input: StageInput) throws -> Image {
        let reduction = input.picture
        return try WindowedResampling(sourceSize: reduction.decodedSize, region: reduction.wholePicture, to: outputSize(for: reduction.fullSize),
                                      kernel: .box, linearLight: false).rows(rows, fromWindow: input.pixels, top: input.top)
    }
}

/// The plugin table carries `wholeResampling` both ways: ImagePipePluginKit exports a stage's
/// answer (`shrink`'s 2, with its size and kernel), and the host's `ExternalStage` reads it back, so a plugin's stage
/// is resampled in a JPEG's planes as a built-in one is.
@Suite struct PluginWholeResamplingTests {
    static var table: UnsafePointer<imagepipe_plugin> { UnsafePointer(PluginExportNotesTests.exported) }

    @Test func theTableSaysWhatTheStageResamples() throws {
        let table = Self.table.pointee
        var error: UnsafeMutablePointer<CChar>?
        var reducedWidth: Int32 = 0, reducedHeight: Int32 = 0, width: Int32 = 0, height: Int32 = 0, kernel: Int32 = -1
        let halve = try #require(table.create("halve-whole", "", &error))
        defer { table.destroy(halve) }
        #expect(table.shrink(halve, 801, 600, &reducedWidth, &reducedHeight, &width, &height, &kernel, &error) == 2)
        #expect((reducedWidth, reducedHeight) == (400, 300))
        #expect((width, height, kernel) == (400, 300, IMAGEPIPE_KERNEL_BOX))
        let noting = try #require(table.create("note-size", "", &error))
        defer { table.destroy(noting) }
        #expect(table.shrink(noting, 801, 600, &reducedWidth, &reducedHeight, &width, &height, &kernel, &error) == 0, "a stage that says nothing")
    }

    @Test func theHostReadsItBack() throws {
        let stage = try ExternalStage(table: ExternalStage.Table(pointer: Self.table), schema: HalveWhole.schema, arguments: Arguments())
        #expect(try stage.shrinkOnLoad?.wholeResampling(for: Size(801, 600)) == WholeResampling(size: Size(400, 300), kernel: .box))
        let noting = try ExternalStage(table: ExternalStage.Table(pointer: Self.table), schema: NoteSize.schema, arguments: Arguments())
        #expect(try noting.shrinkOnLoad?.wholeResampling(for: Size(801, 600)) == nil)
    }

    /// Through the plugin, the stage on a JPEG is planned for the decoder's planes, and the run
    /// gives the picture the stage gives on the RGB decode, within the planes' rounding.
    @Test func aPluginsStageRunsOnTheDecodersPlanes() throws {
        let directory = try TemporaryDirectory()
        let picture = try Synthetic.gradient(640, 480)
        let path = try directory.write(picture.encoded(as: .jpeg, options: SaveOptions(quality: 95)), to: "in.jpg")
        let stage = try ExternalStage(table: ExternalStage.Table(pointer: Self.table), schema: HalveWhole.schema, arguments: Arguments())
        let pipeline = Pipeline(source: Load(path: path), transforms: [stage], sink: Save(path: directory.file("out.png")))
        let plan = try pipeline.plan(in: RunContext())
        #expect(plan.decodeResampling == WholeResampling(size: Size(320, 240), kernel: .box))
        try pipeline.run(in: RunContext())
        let planes = try Image.load(path: directory.file("out.png"))
        let rgb = try HalveWhole().apply(to: Image.load(path: path))
        #expect(planes.size == rgb.size)
        for (x, y) in [(0, 0), (160, 120), (319, 239), (77, 201)] {
            #expect(Synthetic.close(planes.pixel(x: x, y: y), rgb.pixel(x: x, y: y), tolerance: 2), "(\(x), \(y))")
        }
    }
}
