import ImagePipeCore

/// The editor state parameters that `circle-crop` and `crop-editor` share, declared once.
enum EditorParameters {
    static func zoom<S>(_ property: WritableKeyPath<S, Double?> & Sendable) -> Param<S> {
        Param(property, "zoom", .number(1...1000), auto: true,
              help: "Zoom relative to zmin = d / min(w, h), clamped to [zmin, 5]; auto is the editor's first display, min(W, H) / min(w, h) (= zmin when gap is 0).")
    }

    static func offset<S>(_ property: WritableKeyPath<S, Point?> & Sendable) -> Param<S> {
        Param(property, "offset", .point,
              help: "The content offset x,y in viewport points (a scroll view's contentOffset; negative down to the circle's margins), bounced back so the circle stays covered; without it, the circle is centered on the picture.")
    }

    static func gap<S>(_ property: WritableKeyPath<S, Double> & Sendable) -> Param<S> {
        Param(property, "gap", .number(0...100_000), default: 0,
              help: "How much the circle's diameter is shorter than the viewport's shorter side: d = min(W, H) − gap.")
    }

    /// The editor's settled state for a picture, from the optional zoom factor and offset.
    static func state(of viewport: CropViewport, zoomFactor: Double?, offset: Point?) -> CropViewport.State {
        viewport.clamp(zoom: zoomFactor.map { $0 * viewport.minimumZoom } ?? viewport.firstDisplayZoom, offset: offset)
    }

    /// Checks that the gap leaves a circle in the viewport.
    static func check(gap: Double, viewport: Size) throws(ArgumentError) {
        guard gap < Double(viewport.shorterSide) else {
            throw .parameter("gap", "gap \(NumberFormat.text(gap)) leaves no circle in a \(viewport) viewport")
        }
    }
}
