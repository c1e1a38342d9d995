/// Seed 004, the zoomable viewer: a picture shown whole in a viewport, aspect kept, centred on
/// an axis where it is smaller than the viewport.
public struct FitViewport: Hashable, Sendable {
    public var viewport: Size
    public var imageSize: Size

    public init(viewport: Size, imageSize: Size) {
        self.viewport = viewport
        self.imageSize = imageSize
    }

    /// `zmin = min(W/w, H/h)`: the whole picture is visible; also the first display's zoom.
    public var minimumZoom: Double {
        min(Double(viewport.width) / Double(imageSize.width), Double(viewport.height) / Double(imageSize.height))
    }

    /// The picture's size in whole pixels at `zoomFactor` × `zmin`. At factor 1 the limiting side
    /// equals the viewport's exactly (no floating-point drift); the other side and every side at
    /// other factors round to the nearest pixel.
    public func displayedSize(zoomFactor: Double = 1) -> Size {
        let zoom = minimumZoom * zoomFactor
        let widthLimits = Double(viewport.width) / Double(imageSize.width) <= Double(viewport.height) / Double(imageSize.height)
        let width = widthLimits ? Rounding.side(Double(viewport.width) * zoomFactor) : Rounding.side(Double(imageSize.width) * zoom)
        let height = widthLimits ? Rounding.side(Double(imageSize.height) * zoom) : Rounding.side(Double(viewport.height) * zoomFactor)
        return Size(width, height)
    }

    /// `(max(0, (W − w·z)/2), max(0, (H − h·z)/2))` for a displayed picture of `displayed` size:
    /// centred where it is smaller than the viewport, at the scroll position (0) where larger.
    /// Centring floors, so an odd leftover pixel goes to the right or bottom bar.
    public func origin(displayed: Size) -> (x: Int, y: Int) {
        (max(0, (viewport.width - displayed.width) / 2), max(0, (viewport.height - displayed.height) / 2))
    }
}
