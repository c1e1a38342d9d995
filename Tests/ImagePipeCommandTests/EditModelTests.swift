import Testing
import ImagePipe
@testable import ImagePipeCommand
import ImagePipeStages

/// The editor's geometry without a browser: each settled state is the models', and each
/// printed line, run, cuts what that state shows.
@Suite struct EditModelTests {
    let photo = Size(1280, 800)

    func model(_ mode: EditMode, viewport: Size = Size(375, 667), size: Int? = nil) -> EditModel {
        EditModel(mode: mode, imageSize: photo, viewport: viewport, gap: 20, size: size)
    }

    @Test func avatarSettlesAsCropViewportAndItsLineCutsTheSameCircle() throws {
        let editor = model(.avatar, size: 256)
        let crop = CropViewport(viewport: Size(375, 667), gap: 20, imageSize: photo)
        for (zoom, offset) in [(0.1, Point(-500, 900)), (0.6, Point(260, 50)), (9.0, Point(1e6, -1e6)), (0.577, Point(33.3, -100.25))] {
            let settled = editor.settle(EditState(viewport: Size(375, 667), zoom: zoom, offset: offset))
            let wanted = crop.clamp(zoom: zoom, offset: offset)
            #expect(settled.zoom == wanted.zoom && settled.offset == wanted.offset)
            // The line rounds to a millionth of the zoom and a thousandth of a pixel: the circle it cuts is the one shown.
            let stage = try #require(StandardPlugins.compiler.compile(editor.line(for: settled)).transforms.first)
            let explained = try #require(try stage.explanation(for: photo))
            let circle = crop.circleInImage(wanted)
            #expect(explained.hasPrefix("circle center \(NumberFormat.short(circle.center.x)),\(NumberFormat.short(circle.center.y)) radius \(NumberFormat.short(circle.radius))"),
                    "\(explained) vs \(circle)")
        }
    }

    @Test func avatarTurnIsTheSeedsRelayout() {
        let editor = model(.avatar)
        let state = EditState(viewport: Size(375, 667), zoom: 0.576875, offset: Point(260, -49.5))
        let turned = editor.turn(state)
        let (_, wanted) = CropViewport(viewport: Size(375, 667), gap: 20, imageSize: photo)
            .relayout(to: Size(667, 375), .init(zoom: 0.576875, offset: Point(260, -49.5)))
        #expect(turned.viewport == Size(667, 375))
        #expect(turned.zoom == wanted.zoom && turned.offset == wanted.offset)
        // docs/geometry.md's worked example: ox to its new maximum 227.4, oy to −10.
        #expect(abs(turned.offset.x - 227.4) < 1e-9 && turned.offset.y == -10)
    }

    @Test func viewerPlacesThePictureAsFitAndLetterboxDo() throws {
        let editor = model(.viewer)
        let settled = editor.settle(EditState(viewport: Size(375, 667), zoom: 0.29296875 * 2.5, offset: Point(5000, -7)))
        let picture = editor.picture(settled)
        // fit 375x667 zoom=2.5 is 938×586; scrolled to the right end, centred down (667 − 586)/2 floored = 40.
        #expect(picture == Region(x: -563, y: 40, width: 938, height: 586))
        #expect(editor.line(for: settled) == "fit 375x667 zoom=2.5 | letterbox 375x667 offset=563px,0px")
        let screen = try StandardPlugins.compiler.compile(editor.line(for: settled)).plan(sourceSize: photo)
        #expect(screen.steps.map(\.output) == [Size(938, 586), Size(375, 667)])
    }

    @Test func swipeDismissesPastTheSeedsThreshold() {
        let editor = model(.swipe)
        // 0.33 rad is a pan of 0.33 · 4/π · 375 ≈ 157.6 pixels.
        #expect(editor.settle(EditState(viewport: Size(375, 667), zoom: 1, offset: .zero, pan: 157)).pan == 0)
        #expect(editor.settle(EditState(viewport: Size(375, 667), zoom: 1, offset: .zero, pan: -158)).pan == -158)
        #expect(editor.line(for: editor.settle(EditState(viewport: Size(375, 667), zoom: 1, offset: .zero, pan: 200)))
                == "fit 375x667 | letterbox 375x667 | rotate pan=200 anchor=0.5,1.5")
    }

    @Test func sliceStaysCoveredAndTurnsWithItsWindow() {
        let editor = model(.slice)
        let slice = SliceViewport(slice: Size(300, 300), imageSize: photo)
        let settled = editor.settle(EditState(viewport: Size(375, 667), zoom: 0.01, offset: Point(-40, 999)))
        #expect(settled.zoom == slice.minimumZoom)
        #expect(settled.offset == slice.offset(.pixels(x: -40, y: 999), zoom: slice.minimumZoom))
        #expect(editor.turn(settled).offset == settled.offset)
        #expect(editor.line(for: settled) == "slice offset=0px,0px")
    }
}
