import ImagePipe

/// Where an overlay sits on the picture: one of the nine edges and corners, named as the
/// framework's anchors are (`top-left` … `bottom-right`), so that one vocabulary serves every
/// stage; ImageMagick's and sharp's compass words (`southeast`) are read as these names, as every
/// position reads them (`Anchor.name(for:)`).
public enum Gravity: String, CaseIterable, Sendable {
    case topLeft = "top-left", top, topRight = "top-right"
    case left, center, right
    case bottomLeft = "bottom-left", bottom, bottomRight = "bottom-right"

    /// -1 for the left column, 0 for the middle, 1 for the right.
    var column: Int {
        switch self {
        case .topLeft, .left, .bottomLeft: -1
        case .top, .center, .bottom: 0
        case .topRight, .right, .bottomRight: 1
        }
    }

    /// -1 for the top row, 0 for the middle, 1 for the bottom.
    var row: Int {
        switch self {
        case .topLeft, .top, .topRight: -1
        case .left, .center, .right: 0
        case .bottomLeft, .bottom, .bottomRight: 1
        }
    }

    /// The top-left corner of a `size` overlay on a `canvas` picture, `offset` pixels in from
    /// the gravity's edges (ImageMagick's `-gravity … -geometry +X+Y`): at `bottom-right`,
    /// `10,10` moves it 10 px left and 10 px up; at `center` and on the middle line, positive
    /// offsets move right and down. Centring rounds halves away from zero (`Rounding.pixels`).
    public func origin(of size: Size, on canvas: Size, offset: Point) -> (x: Int, y: Int) {
        func place(_ side: Int, on length: Int, _ position: Int, _ offset: Double) -> Int {
            let shift = Rounding.pixels(offset)
            switch position {
            case -1: return shift
            case 1: return length - side - shift
            default: return Rounding.pixels(Double(length - side) / 2) + shift
            }
        }
        return (place(size.width, on: canvas.width, column, offset.x), place(size.height, on: canvas.height, row, offset.y))
    }
}
