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

    /// The largest offset or pan taken, in CSS pixels: far past any picture the stages can show
    /// (at most 100000 pixels a side at 5× in the avatar, 64× a 20000-pixel viewport in the viewer)
    /// and small enough for every rounding to whole pixels.
    static let maxOffset = 1e7
    /// The zoom range taken, in screen pixels per picture pixel: wider than any zoom a screen
    /// settles at; the models clamp within it.
    static let zoomRange = 1e-9...1e6

    /// The state in a JSON request: `{"viewport":{"width":W,"height":H},"zoom":z,"offset":{"x":…,"y":…},"pan":p}`.
    /// Every number is checked before any use: a missing field, a value that is not a finite
    /// number in its range, or a viewport that is not a whole size is refused, saying which.
    /// A missing or null pan is 0 (the page sends none outside the swipe).
    init(json: JSONValue) throws(EditRequestError) {
        func number(_ value: JSONValue?, _ name: String, in range: ClosedRange<Double>) throws(EditRequestError) -> Double {
            guard let value else { throw EditRequestError("the state has no \(name)") }
            guard let number = value.numberValue else { throw EditRequestError("\(name) is not a number") }
            guard number.isFinite, range.contains(number) else {
                throw EditRequestError("\(name) = \(NumberFormat.text(number)) is outside \(NumberFormat.text(range.lowerBound))…\(NumberFormat.text(range.upperBound))")
            }
            return number
        }
        let width = try number(json["viewport"]?["width"], "viewport.width", in: 1...20_000)
        let height = try number(json["viewport"]?["height"], "viewport.height", in: 1...20_000)
        guard width == width.rounded(), height == height.rounded() else {
            throw EditRequestError("the viewport \(NumberFormat.text(width))x\(NumberFormat.text(height)) is not in whole pixels")
        }
        let zoom = try number(json["zoom"], "zoom", in: Self.zoomRange)
        let x = try number(json["offset"]?["x"], "offset.x", in: -Self.maxOffset...Self.maxOffset)
        let y = try number(json["offset"]?["y"], "offset.y", in: -Self.maxOffset...Self.maxOffset)
        let pan = try json["pan"].flatMap { $0 == .null ? nil : $0 }.map { value throws(EditRequestError) in try number(value, "pan", in: -Self.maxOffset...Self.maxOffset) } ?? 0
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
