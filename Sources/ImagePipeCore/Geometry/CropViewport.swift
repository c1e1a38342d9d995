/// Seed 000, the QQ-style avatar editor: a circle centred in the viewport that the picture
/// must always cover, with the zoom limits, the "bounce back" clamping of the content offset,
/// the circle in image pixels that "OK" cuts out, and the relayout after a rotation.
///
/// Zoom is in viewport points per image pixel; the content offset is the content point (in
/// zoomed pixels) at the viewport's top-left corner, as a scroll view's `contentOffset`, and
/// may be negative down to the circle's margins (the scroll view's content inset).
public struct CropViewport: Hashable, Sendable {
    public var viewport: Size
    /// How much shorter the circle's diameter is than the viewport's shorter side.
    public var gap: Double
    public var imageSize: Size

    /// A zoom and content offset of the editor.
    public struct State: Hashable, Sendable {
        public var zoom: Double
        public var offset: Point
        public init(zoom: Double, offset: Point) {
            self.zoom = zoom
            self.offset = offset
        }
    }

    public init(viewport: Size, gap: Double = 0, imageSize: Size) {
        self.viewport = viewport
        self.gap = gap
        self.imageSize = imageSize
    }

    /// `d = min(W, H) − gap`.
    public var diameter: Double { Double(viewport.shorterSide) - gap }

    /// `c = ((W − d)/2, (H − d)/2)`: the circle's bounding square's top-left corner.
    public var circleOrigin: Point {
        Point((Double(viewport.width) - diameter) / 2, (Double(viewport.height) - diameter) / 2)
    }

    /// `zmin = d / min(w, h)`: the picture's shorter side is tangent to the circle.
    public var minimumZoom: Double { diameter / Double(imageSize.shorterSide) }

    /// `zmax = 5` (or `zmin` for a picture so small that even 5 would not cover the circle).
    public var maximumZoom: Double { max(5, minimumZoom) }

    /// `z = min(W, H) / min(w, h)`: the first display, the shorter image side filling the
    /// shorter viewport side.
    public var firstDisplayZoom: Double { clampZoom(Double(viewport.shorterSide) / Double(imageSize.shorterSide)) }

    public func clampZoom(_ zoom: Double) -> Double { min(max(zoom, minimumZoom), maximumZoom) }

    /// The offsets that keep the circle covered: `−c.x ≤ ox ≤ w·z − c.x − d`, likewise for y.
    public func offsetRange(zoom: Double) -> (x: ClosedRange<Double>, y: ClosedRange<Double>) {
        let origin = circleOrigin
        let maxX = max(-origin.x, Double(imageSize.width) * zoom - origin.x - diameter)
        let maxY = max(-origin.y, Double(imageSize.height) * zoom - origin.y - diameter)
        return (-origin.x...maxX, -origin.y...maxY)
    }

    /// The offset that puts the circle's centre on the picture's centre.
    public func centredOffset(zoom: Double) -> Point {
        Point((Double(imageSize.width) * zoom - Double(viewport.width)) / 2,
              (Double(imageSize.height) * zoom - Double(viewport.height)) / 2)
    }

    /// The state the editor settles in: zoom within its limits, then the offset "bounced back"
    /// to the nearest position that covers the circle. A nil offset is centred.
    public func clamp(zoom: Double, offset: Point?) -> State {
        let zoom = clampZoom(zoom)
        let wanted = offset ?? centredOffset(zoom: zoom)
        let range = offsetRange(zoom: zoom)
        return State(zoom: zoom, offset: Point(min(max(wanted.x, range.x.lowerBound), range.x.upperBound),
                                               min(max(wanted.y, range.y.lowerBound), range.y.upperBound)))
    }

    /// What "OK" cuts out, in image pixels: centre `((ox + c.x + d/2)/z, (oy + c.y + d/2)/z)`,
    /// radius `d/(2z)`.
    public func circleInImage(_ state: State) -> (center: Point, radius: Double) {
        let origin = circleOrigin
        return (Point((state.offset.x + origin.x + diameter / 2) / state.zoom,
                      (state.offset.y + origin.y + diameter / 2) / state.zoom),
                diameter / (2 * state.zoom))
    }

    /// The editor after the device turns: the circle comes from the new viewport, and the same
    /// zoom and offset are clamped again to the limits derived from it.
    public func relayout(to newViewport: Size, _ state: State) -> (viewport: CropViewport, state: State) {
        let turned = CropViewport(viewport: newViewport, gap: gap, imageSize: imageSize)
        return (turned, turned.clamp(zoom: state.zoom, offset: state.offset))
    }
}
