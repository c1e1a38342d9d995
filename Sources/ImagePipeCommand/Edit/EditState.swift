import ImagePipe

/// The editor's state, as the page sends it (raw, mid-gesture) and as the server answers it
/// (settled): the viewport it is in, the zoom in screen pixels per picture pixel, the content
/// offset (the picture's top-left corner lies at the screen's base point minus the offset, as in
/// a scroll view) and, for the swipe, the horizontal pan.
struct EditState: Equatable, Sendable {
    var viewport: Size
    var zoom: Double
    var offset: Point
    var pan: Double = 0

    /// The state in a JSON request: `{"viewport":{"width":W,"height":H},"zoom":z,"offset":{"x":…,"y":…},"pan":p}`.
    /// nil when a field is missing, not a finite number, or the viewport is not a whole size.
    init?(json: JSONValue) {
        guard let width = json["viewport"]?["width"]?.numberValue, let height = json["viewport"]?["height"]?.numberValue,
              width == width.rounded(), height == height.rounded(), (1...20_000).contains(width), (1...20_000).contains(height),
              let zoom = json["zoom"]?.numberValue, zoom.isFinite, zoom > 0,
              let x = json["offset"]?["x"]?.numberValue, let y = json["offset"]?["y"]?.numberValue, x.isFinite, y.isFinite
        else { return nil }
        let pan = json["pan"]?.numberValue ?? 0
        guard pan.isFinite else { return nil }
        self.init(viewport: Size(Int(width), Int(height)), zoom: zoom, offset: Point(x, y), pan: pan)
    }

    init(viewport: Size, zoom: Double, offset: Point, pan: Double = 0) {
        self.viewport = viewport
        self.zoom = zoom
        self.offset = offset
        self.pan = pan
    }

    var json: JSONValue {
        .object([("viewport", .size(viewport)), ("zoom", .number(zoom)), ("offset", .point(offset)), ("pan", .number(pan))])
    }
}

extension JSONValue {
    static func size(_ size: Size) -> JSONValue { .object([("width", .number(Double(size.width))), ("height", .number(Double(size.height)))]) }
    static func point(_ point: Point) -> JSONValue { .object([("x", .number(point.x)), ("y", .number(point.y))]) }
    static func region(_ region: Region) -> JSONValue {
        .object([("x", .number(region.x)), ("y", .number(region.y)), ("width", .number(region.width)), ("height", .number(region.height))])
    }
}
