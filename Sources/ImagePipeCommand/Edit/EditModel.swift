#if canImport(Glibc)
import Glibc
#endif
import AnchorRotate
import CircleCrop
import FitZoom
import ImagePipe
import Letterbox
import SquareSlice

/// The editor's geometry, all of it from ImagePipe's models and stages: where a raw gesture
/// settles (CropViewport's bounce-back, SliceViewport's cover, FitViewport's fit and
/// letterbox's placement, the swipe's dismissal), what a turn of the device does, and the
/// pipeline line that cuts what the screen shows. The page draws what this says and nothing else.
struct EditModel: Sendable {
    let mode: EditMode
    /// The picture as the pipeline sees it: after EXIF orientation.
    let imageSize: Size
    /// The viewport the editor starts in; the page may turn it (width and height swapped).
    let viewport: Size
    /// Avatar mode: d = min(W, H) − gap.
    let gap: Double
    /// Avatar mode: the avatar's side (nil: circle-crop's auto). Slice mode: the slice's side.
    let size: Int?

    /// Seed 003: a released swipe that has turned the view by more than this (radians) dismisses it.
    static let dismissAngle = 0.33
    /// Seed 004 sets no maximum zoom; the viewer allows native pixels, and at least 4× the fit.
    static let viewerZoomFactors = 4.0
    /// The largest zoom factor the stages' `zoom=` parameters accept (circle-crop, slice: 1…1000; fit: 1…64).
    static let stageZoomLimit = 1000.0
    static let fitZoomLimit = 64.0

    /// Seed 001's slice side.
    static let defaultSliceSide = 300

    /// Refuses settings no screen can show; says which option and why.
    func check() throws(UsageError) {
        switch mode {
        case .avatar:
            guard gap >= 0, gap < Double(viewport.shorterSide) else {
                throw UsageError("--gap \(NumberFormat.text(gap)) leaves no circle in a \(viewport) viewport: use 0 ≤ gap < \(viewport.shorterSide)")
            }
        case .slice:
            let side = sliceSide
            guard side <= viewport.shorterSide else {
                throw UsageError("--size \(side): a \(side)x\(side) slice does not fit the \(viewport) viewport; use at most \(viewport.shorterSide) or a larger --viewport")
            }
        case .viewer, .swipe: break
        }
    }

    var sliceSide: Int { size ?? Self.defaultSliceSide }
    var slice: Size { Size(sliceSide, sliceSide) }

    func other(_ viewport: Size) -> Size { viewport.transposed }

    /// Whether the page may be in this viewport: the one the editor started in, or it turned.
    func allows(_ viewport: Size) -> Bool { viewport == self.viewport || viewport == self.viewport.transposed }

    // MARK: - Settling

    /// The first display, as each seed opens its screen.
    func first(in viewport: Size) -> EditState {
        switch mode {
        case .avatar:
            let model = crop(viewport)
            return avatarState(model, model.clamp(zoom: model.firstDisplayZoom, offset: nil))
        case .slice:
            let model = SliceViewport(slice: slice, imageSize: imageSize)
            let zoom = model.minimumZoom
            return EditState(viewport: viewport, zoom: zoom, offset: model.offset(.center, zoom: zoom))
        case .viewer, .swipe:
            return viewerState(viewport, factor: 1, offset: .zero)
        }
    }

    /// Where a raw gesture state comes to rest: the bounce-back.
    func settle(_ raw: EditState) -> EditState {
        switch mode {
        case .avatar:
            let model = crop(raw.viewport)
            // The stages take the zoom as a factor of zmin of at most 1000.
            let zoom = min(raw.zoom, Self.stageZoomLimit * model.minimumZoom)
            return avatarState(model, model.clamp(zoom: zoom, offset: raw.offset))
        case .slice:
            let model = SliceViewport(slice: slice, imageSize: imageSize)
            let zoom = min(max(raw.zoom, model.minimumZoom), min(model.maximumZoom, Self.stageZoomLimit * model.minimumZoom))
            return EditState(viewport: raw.viewport, zoom: zoom, offset: model.offset(.pixels(x: raw.offset.x, y: raw.offset.y), zoom: zoom))
        case .viewer:
            let fit = FitViewport(viewport: raw.viewport, imageSize: imageSize)
            return viewerState(raw.viewport, factor: raw.zoom / fit.minimumZoom, offset: raw.offset)
        case .swipe:
            let width = Double(raw.viewport.width)
            // A pan past two widths would turn the view over; the finger cannot go that far on the screen.
            let pan = min(max(raw.pan, -2 * width), 2 * width)
            let dismissed = abs(angle(pan: pan, in: raw.viewport)) > Self.dismissAngle
            var state = first(in: raw.viewport)
            state.pan = dismissed ? pan : 0
            return state
        }
    }

    /// The device turns portrait ↔ landscape: each seed's relayout in the other viewport.
    func turn(_ raw: EditState) -> EditState {
        let turned = other(raw.viewport)
        switch mode {
        case .avatar:
            // Seed 000: the circle comes from the new viewport, zoom and offset are clamped again.
            let settled = settle(raw)
            let (model, state) = crop(raw.viewport).relayout(to: turned, CropViewport.State(zoom: settled.zoom, offset: settled.offset))
            return avatarState(model, state)
        case .slice:
            // The slice window keeps its size, so the state within it stands.
            var state = settle(raw)
            state.viewport = turned
            return state
        case .viewer, .swipe:
            // Seed 004 sets the zoom back to the fit whenever the view changes size; seed 003's view starts unturned.
            return first(in: turned)
        }
    }

    private func crop(_ viewport: Size) -> CropViewport { CropViewport(viewport: viewport, gap: gap, imageSize: imageSize) }

    private func avatarState(_ model: CropViewport, _ state: CropViewport.State) -> EditState {
        EditState(viewport: model.viewport, zoom: state.zoom, offset: state.offset)
    }

    /// The viewer at `factor` × the fit: the size `fit` makes and the place `letterbox` gives it,
    /// so the screen is the line's picture to the pixel. The factor is kept to 4 decimals, the
    /// scroll offset to whole pixels (letterbox rounds it so).
    private func viewerState(_ viewport: Size, factor raw: Double, offset: Point) -> EditState {
        let fit = FitViewport(viewport: viewport, imageSize: imageSize)
        let factor = ((min(max(raw, 1), viewerMaximumFactor(fit))) * 10_000).rounded() / 10_000
        let displayed = fit.displayedSize(zoomFactor: factor)
        let placement = letterbox(viewport, displayed: displayed, offset: offset).placement(for: displayed)
        return EditState(viewport: viewport, zoom: fit.minimumZoom * factor, offset: Point(Double(-placement.x), Double(-placement.y)))
    }

    private func viewerMaximumFactor(_ fit: FitViewport) -> Double {
        min(Self.fitZoomLimit, max(Self.viewerZoomFactors, 1 / fit.minimumZoom))
    }

    /// The letterbox that places a `displayed` picture scrolled to `offset` (pixels, clamped by the stage).
    private func letterbox(_ viewport: Size, displayed: Size, offset: Point) -> LetterboxStage {
        let scrolls = displayed.width > viewport.width || displayed.height > viewport.height
        let x = displayed.width > viewport.width ? Double(Rounding.pixels(offset.x)) : 0
        let y = displayed.height > viewport.height ? Double(Rounding.pixels(offset.y)) : 0
        return LetterboxStage(size: viewport, offset: scrolls ? .pixels(x: x, y: y) : .center)
    }

    /// The swipe's turn for a pan: the rotate stage's own `pan / W · π/4`.
    func angle(pan: Double, in viewport: Size) -> Double {
        RotateStage(turn: .pan(pan), anchor: Self.swipeAnchor).angle(forWidth: viewport.width).radians
    }

    /// Seed 003's anchor: half a height below the view's bottom edge.
    static let swipeAnchor = Anchor.unit(x: 0.5, y: 1.5)

    // MARK: - What the screen shows

    /// Where the picture lies on the screen, in screen pixels.
    func picture(_ state: EditState) -> Region {
        switch mode {
        case .avatar, .slice:
            let base = self.base(state.viewport)
            return Region(x: base.x - state.offset.x, y: base.y - state.offset.y,
                          width: Double(imageSize.width) * state.zoom, height: Double(imageSize.height) * state.zoom)
        case .viewer, .swipe:
            let fit = FitViewport(viewport: state.viewport, imageSize: imageSize)
            let displayed = fit.displayedSize(zoomFactor: mode == .swipe ? 1 : state.zoom / fit.minimumZoom)
            return Region(x: -state.offset.x, y: -state.offset.y, width: Double(displayed.width), height: Double(displayed.height))
        }
    }

    /// The screen point the content offset is measured from: the slice window's corner in slice mode.
    func base(_ viewport: Size) -> Point {
        guard mode == .slice else { return .zero }
        return Point(Double(viewport.width - sliceSide) / 2, Double(viewport.height - sliceSide) / 2)
    }

    /// The settled state with everything the page draws and reports: limits, the circle or the
    /// window on the screen and in picture pixels, the swipe's angle, and the line; with the raw
    /// state it answers, so a test can check the answer against the models.
    func answer(_ state: EditState, requested: EditState? = nil) -> JSONValue {
        var fields: [(String, JSONValue)] = [("state", state.json), ("picture", .region(picture(state))), ("base", .point(base(state.viewport)))]
        switch mode {
        case .avatar:
            let model = crop(state.viewport)
            let circle = model.circleInImage(CropViewport.State(zoom: state.zoom, offset: state.offset))
            fields += [
                ("limits", .object([("minZoom", .number(model.minimumZoom)), ("maxZoom", .number(min(model.maximumZoom, Self.stageZoomLimit * model.minimumZoom)))])),
                ("circle", .object([("x", .number(model.circleOrigin.x)), ("y", .number(model.circleOrigin.y)), ("diameter", .number(model.diameter))])),
                ("imageCircle", .object([("x", .number(circle.center.x)), ("y", .number(circle.center.y)), ("radius", .number(circle.radius))])),
            ]
        case .slice:
            let model = SliceViewport(slice: slice, imageSize: imageSize)
            let base = self.base(state.viewport)
            fields += [
                ("limits", .object([("minZoom", .number(model.minimumZoom)), ("maxZoom", .number(min(model.maximumZoom, Self.stageZoomLimit * model.minimumZoom)))])),
                ("window", .region(Region(x: base.x, y: base.y, width: Double(sliceSide), height: Double(sliceSide)))),
                ("imageWindow", .region(model.window(zoom: state.zoom, offset: state.offset))),
            ]
        case .viewer:
            let fit = FitViewport(viewport: state.viewport, imageSize: imageSize)
            fields += [("limits", .object([("minZoom", .number(fit.minimumZoom)), ("maxZoom", .number(fit.minimumZoom * viewerMaximumFactor(fit)))]))]
        case .swipe:
            let angle = angle(pan: state.pan, in: state.viewport)
            fields += [
                ("angle", .number(angle)), ("dismissed", .bool(abs(angle) > Self.dismissAngle)),
                ("anchor", .point(Point(0.5, 1.5))), ("dismissAngle", .number(Self.dismissAngle)),
            ]
        }
        fields.append(("line", .string(line(for: state))))
        if let requested { fields.append(("requested", requested.json)) }
        return .object(fields)
    }

    // MARK: - The line

    /// The stages that cut what the screen shows for a settled state, in their canonical text.
    func stages(for state: EditState) -> [any Transform] {
        switch mode {
        case .avatar:
            let model = crop(state.viewport)
            let factor = Self.decimals(state.zoom / model.minimumZoom, 6)
            let offset = Point(Self.decimals(state.offset.x, 3), Self.decimals(state.offset.y, 3))
            // The values were checked when the session started; the stage accepts every settled state.
            return [try! CircleCropStage(size: size, viewport: state.viewport, gap: gap, zoom: max(1, factor), offset: offset)]
        case .slice:
            let model = SliceViewport(slice: slice, imageSize: imageSize)
            let factor = max(1, Self.decimals(state.zoom / model.minimumZoom, 6))
            return [SliceStage(size: slice, zoom: factor, offset: .pixels(x: Self.decimals(state.offset.x, 3), y: Self.decimals(state.offset.y, 3)))]
        case .viewer:
            let fit = FitViewport(viewport: state.viewport, imageSize: imageSize)
            let factor = max(1, Self.decimals(state.zoom / fit.minimumZoom, 4))
            let displayed = fit.displayedSize(zoomFactor: factor)
            return [FitStage(size: state.viewport, zoom: factor), letterbox(state.viewport, displayed: displayed, offset: state.offset)]
        case .swipe:
            return [FitStage(size: state.viewport), LetterboxStage(size: state.viewport),
                    RotateStage(turn: .pan(Self.decimals(state.pan, 2)), anchor: Self.swipeAnchor)]
        }
    }

    /// The pipeline line: what "OK" runs and prints.
    func line(for state: EditState) -> String { stages(for: state).map(\.text).joined(separator: " | ") }

    /// `value` rounded to `places` decimals: lines people can read, within a thousandth of a pixel.
    static func decimals(_ value: Double, _ places: Int) -> Double {
        let scale = pow(10, Double(places))
        return (value * scale).rounded() / scale
    }
}
