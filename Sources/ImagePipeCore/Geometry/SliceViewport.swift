/// Seed 001, Project NP's slice: a fixed window the picture always covers, zoom between cover
/// and native size, cut at a content offset.
public struct SliceViewport: Hashable, Sendable {
    public var slice: Size
    public var imageSize: Size

    public init(slice: Size, imageSize: Size) {
        self.slice = slice
        self.imageSize = imageSize
    }

    /// `zmin = max(Ws/w, Hs/h)`: the picture covers the slice.
    public var minimumZoom: Double {
        max(Double(slice.width) / Double(imageSize.width), Double(slice.height) / Double(imageSize.height))
    }

    /// `zmax = 1`, or `zmin` when that is larger (a small picture is enlarged just enough).
    public var maximumZoom: Double { max(1, minimumZoom) }

    /// `zoomFactor` × `zmin`, clamped to `[zmin, zmax]`.
    public func zoom(factor: Double) -> Double { min(max(minimumZoom * factor, minimumZoom), maximumZoom) }

    /// How far the content can scroll at `zoom`: `0 … w·z − Ws` (and likewise for y).
    public func maximumOffset(zoom: Double) -> Point {
        Point(max(0, Double(imageSize.width) * zoom - Double(slice.width)),
              max(0, Double(imageSize.height) * zoom - Double(slice.height)))
    }

    /// The content offset an anchor names: unit anchors place the window proportionally
    /// (`0.5,0.5` is the seed's centred first display), pixel anchors are the offset itself;
    /// either is clamped so the window stays on the picture.
    public func offset(_ anchor: Anchor, zoom: Double) -> Point {
        let limit = maximumOffset(zoom: zoom)
        let wanted: Point = switch anchor {
        case let .unit(x, y): Point(x * limit.x, y * limit.y)
        case let .pixels(x, y): Point(x, y)
        }
        return Point(min(max(wanted.x, 0), limit.x), min(max(wanted.y, 0), limit.y))
    }

    /// The window in image pixels: `(ox/z, oy/z, Ws/z, Hs/z)`.
    public func window(zoom: Double, offset: Point) -> Region {
        Region(x: offset.x / zoom, y: offset.y / zoom, width: Double(slice.width) / zoom, height: Double(slice.height) / zoom)
    }
}
